// SPDX-License-Identifier: MIT
/*
 * The guest image and its console log outside testfs-matrix: `image`
 * writes the initramfs for another CI engine (KernelCI, LAVA, tuxrun) to
 * boot with its own kernels and machines; `decode` reads the console
 * logs it kept and gives the same table, JSON and KTAP as a local run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonv.h"
#include "lava.h"
#include "matrix.h"
#include "outfile.h"

int copy_out(const char *src, const char *out)
{
	char buf[1 << 16];
	struct outfile o;
	size_t n;
	FILE *in = fopen(src, "r");
	int err;

	if (!in)
		return -errno;
	err = outfile_open(&o, out);
	if (err) {
		fclose(in);
		return err;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, o.f) != n)
			break;
	if (ferror(in) && !o.err)
		o.err = -EIO;
	fclose(in);
	return outfile_close(&o);
}

int cmd_image(struct matrix *m, const char *const *specs, size_t nspec)
{
	char why[512], tmp[PATH_MAX];
	struct kernel k;
	const char *out;
	int err;

	if (m->argc < 3)
		return check_command(1, (char *[]){ (char *)"image" });
	out = m->argv[1];
	m->argv += 2;
	m->argc -= 2;
	if (strcmp(m->argv[0], "image") == 0 ||
	    strcmp(m->argv[0], "decode") == 0 ||
	    check_command(m->argc, m->argv))
		return 2;
	if (nspec > 1) {
		fprintf(stderr, "testfs-matrix: image: one --kernel at most "
				"(its fuse.ko goes in the image)\n");
		return 2;
	}
	memset(&k, 0, sizeof(k));
	if (nspec) {
		kernel_prepare(&k, specs[0]);
		if (k.host) {
			fprintf(stderr, "testfs-matrix: image: the host needs "
					"no image\n");
			return 2;
		}
		if (k.skip[0]) {
			fprintf(stderr, "testfs-matrix: %s: %s\n", k.spec,
				k.skip);
			return 1;
		}
	}
	if (bins_find(&m->bins, why, sizeof(why))) {
		fprintf(stderr, "testfs-matrix: %s\n", why);
		return 2;
	}
	err = matrix_work(m);
	if (err) {
		fprintf(stderr, "testfs-matrix: mkdtemp: %s\n", strerror(-err));
		return 1;
	}
	snprintf(m->base, sizeof(m->base), "%s/base.cpio", m->workdir);
	/* Built in the work folder (removed on a signal), then copied. */
	snprintf(tmp, sizeof(tmp), "%s/guest.cpio", m->workdir);
	err = image_build_base(&m->bins, strcmp(m->argv[0], "suite") == 0,
			       m->base, why, sizeof(why));
	if (!err)
		err = image_for_kernel(m->base, &k, m->argv, tmp, why,
				       sizeof(why));
	if (!err) {
		err = copy_out(tmp, out);
		if (err)
			snprintf(why, sizeof(why), "%s: %s", out,
				 strerror(-err));
	}
	unlink(tmp);
	if (err) {
		fprintf(stderr, "testfs-matrix: image: %s\n", why);
	} else {
		printf("%s: initramfs for '%s'%s%s; boot it with\n"
		       "  console=ttyS0 panic=-1 quiet\n",
		       out, m->argv[0], k.fuse_ko[0] ? ", fuse.ko of " : "",
		       k.fuse_ko[0] ? k.release : "");
	}
	cleanup_work(m);
	return err ? 1 : 0;
}

static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) || !(buf = malloc((size_t)st.st_size + 1))) {
		fclose(f);
		return NULL;
	}
	*len = fread(buf, 1, (size_t)st.st_size, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* The command's arguments from the log's "command" frame. */
static int command_of(const struct capture *c, char ***argv)
{
	const struct frame *f = capture_frame(c, "command");
	char *copy, *line, *save = NULL;
	int n = 0;

	if (!f || !(copy = strndup(f->data, f->len)))
		return 0;
	*argv = calloc(f->len + 2, sizeof(**argv));
	if (!*argv) {
		free(copy);
		return 0;
	}
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		(*argv)[n++] = strdup(line);
	free(copy);
	return n;
}

/* The kernel release a captured caps frame names, into @buf if it does. */
static void caps_release(const struct frame *caps, char *buf, size_t size)
{
	struct jv *v = jv_parse(caps->data, caps->len);
	const char *rel = jv_str(v, "release");

	if (rel)
		snprintf(buf, size, "%s", rel);
	jv_free(v);
}

int cmd_decode(struct matrix *m, const char *json, const char *ktap)
{
	char **logs = m->argv + 1, **cmd = NULL;
	size_t n = (size_t)m->argc - 1, i;
	struct run *runs;
	int status = 0, ncmd = 0;

	if (!n) {
		fprintf(stderr, "testfs-matrix: decode: a console LOG is "
				"needed\n");
		return 2;
	}
	runs = calloc(n, sizeof(*runs));
	if (!runs)
		return 1;
	for (i = 0; i < n; i++) {
		struct run *r = &runs[i];
		struct capture c;
		size_t len = 0;
		char *text = slurp(logs[i], &len);
		const struct frame *caps;

		snprintf(r->k.spec, sizeof(r->k.spec), "%s", logs[i]);
		if (!text) {
			fprintf(stderr, "testfs-matrix: %s: %s\n", logs[i],
				strerror(errno));
			status = 2;
			continue;
		}
		if (lava_log_is(text, len)) {
			/* LAVA's job log: its console lines. */
			char *console = lava_log_console(text, len, &len);

			free(text);
			text = console;
		}
		capture_parse(&c, text ? text : "", text ? len : 0);
		free(text);
		caps = capture_frame(&c, "caps");
		if (caps)
			caps_release(caps, r->k.release, sizeof(r->k.release));
		if (!cmd) {
			ncmd = command_of(&c, &cmd);
			m->argv = cmd;
			m->argc = ncmd;
		}
		if (!ncmd) {
			r->status = RUN_FAILED;
			snprintf(r->reason, sizeof(r->reason),
				 "no testfs-matrix output in this log");
		} else {
			r->status = RUN_OK;
			run_collect(m, r, &c);
		}
		if (r->status == RUN_FAILED)
			status = 1;
		capture_free(&c);
	}
	if (!ncmd) {
		static char *none[] = { (char *)"?", NULL };

		m->argv = none;
		m->argc = 1;
	}
	if (matrix_finish(m, runs, n, json, ktap))
		status = 1;
	for (i = 0; i < n; i++)
		run_free(&runs[i]);
	free(runs);
	for (i = 0; cmd && i < (size_t)ncmd; i++)
		free(cmd[i]);
	free(cmd);
	return status;
}
