// SPDX-License-Identifier: MIT
/*
 * testfs-scenario run elf-startup on a program the project did not
 * choose (/usr/bin/ls, else /bin/bash): the invariants that hold on any
 * kernel (bytes through the mount equal the file, the log's pages equal
 * the page cache, per-segment counts add up to the total, every touched
 * page was fetched); and bad binaries exit 2 with a message naming the
 * problem, never a crash.
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scenario_json.h"

extern char **environ;

/* The test's directory: TMPDIR of the runs, crafted files, outputs. */
static char dir[256];

static void make_dir(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/testfs-elf-test.XXXXXX",
		 base && base[0] == '/' && strlen(base) < 200 ? base : "/tmp");
	cr_assert(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

static void remove_dir(void)
{
	char cmd[300];

	if (!dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	dir[0] = '\0';
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t len = 0, cap = 1 << 16, n;
	char *buf = malloc(cap + 1);

	cr_assert(buf);
	if (!f) {
		buf[0] = '\0';
		return buf;
	}
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			buf = realloc(buf, 2 * cap + 1);
			cr_assert(buf);
			cap *= 2;
		}
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* Runs testfs-scenario @args; its exit status, stdout and stderr. */
static int run(const char *const *args, char **out, char **err)
{
	const char *bin = getenv("TESTFS_SCENARIO");
	char outp[300], errp[300];
	const char *argv[16] = { bin };
	posix_spawn_file_actions_t fa;
	int i, ws;
	pid_t pid;

	cr_assert(bin, "TESTFS_SCENARIO is not set");
	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	snprintf(outp, sizeof(outp), "%s/out", dir);
	snprintf(errp, sizeof(errp), "%s/err", dir);
	setenv("TMPDIR", dir, 1);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, outp,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 2, errp,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_eq(posix_spawn(&pid, bin, &fa, NULL, (char **)argv, environ),
		     0);
	posix_spawn_file_actions_destroy(&fa);
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	*out = slurp(outp);
	*err = slurp(errp);
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

static double num(const char *json, const char *path)
{
	double v = -1;

	cr_assert(json_number(json, path, &v), "no number at %s", path);
	return v;
}

static void require_fuse(void)
{
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		cr_skip_test("FUSE unavailable: /dev/fuse: %s",
			     strerror(errno));
	close(fd);
}

/* Pages fetched (distinct) and reads of the "startup" phase of @log. */
static void count_log(const char *log, double *pages, double *reads)
{
	char *text = slurp(log), *line, *save = NULL;
	static unsigned char seen[1 << 20];
	bool in = false;
	double page, n, p;

	memset(seen, 0, sizeof(seen));
	*pages = *reads = 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "\"mark\":\"startup begin\"")) {
			in = true;
			continue;
		}
		if (strstr(line, "\"mark\":\"startup end\""))
			break;
		if (!in || strstr(line, "\"mark\"") ||
		    strstr(line, "\"access\"") || strstr(line, "\"folios\"") ||
		    strstr(line, "\"direct\"") ||
		    !json_number(line, "page", &page) ||
		    !json_number(line, "pages", &n))
			continue;
		(*reads)++;
		for (p = page; p < page + n && p < sizeof(seen); p++)
			if (!seen[(size_t)p]++)
				(*pages)++;
	}
	cr_assert(in, "no 'startup begin' mark in %s", log);
	free(text);
}

TestSuite(elf_startup, .init = make_dir, .fini = remove_dir, .timeout = 120);

Test(elf_startup, invariants_on_a_system_program)
{
	const char *prog =
		access("/usr/bin/ls", R_OK) == 0 ? "/usr/bin/ls" : "/bin/bash";
	char barg[64], larg[320], log[300], path[96], *out, *err;
	const char *args[] = {
		"run", "elf-startup", "--json", barg, larg, NULL
	};
	double pages, reads, inside = 0, gaps, outside, total;
	int i, n;

	require_fuse();
	cr_assert_eq(access(prog, R_OK), 0,
		     "neither /usr/bin/ls nor /bin/bash");
	snprintf(barg, sizeof(barg), "binary=%s", prog);
	snprintf(log, sizeof(log), "%s/log.jsonl", dir);
	snprintf(larg, sizeof(larg), "log=%s", log);
	cr_assert_eq(run(args, &out, &err), 0, "%s: %s", prog, err);
	cr_assert(json_valid(out), "%.2000s", out);
	/* The bytes read through the mount are the file's. */
	cr_assert(strstr(out, "\"bytes_equal\":true"), "%.3000s", out);
	/* mincore() of the file equals the pages the log fetched. */
	cr_assert(strstr(out, "\"page_cache_equals_log\":true"), "%.3000s",
		  out);
	cr_assert_eq(num(out, "fetched.checks.touched_not_fetched"), 0);
	count_log(log, &pages, &reads);
	total = num(out, "fetched.pages_fetched");
	cr_assert_eq(total, pages);
	cr_assert_eq(num(out, "fetched.requests"), reads);
	/* Per segment: inside (less pages two segments share) plus the
	 * gaps before the first, between and after the last = total. */
	n = (int)num(out, "binary.loads");
	cr_assert_geq(n, 1);
	gaps = num(out, "fetched.segments.0.before");
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "fetched.segments.%d.inside", i);
		inside += num(out, path);
		snprintf(path, sizeof(path), "fetched.segments.%d.after", i);
		gaps += num(out, path);
	}
	outside = num(out, "fetched.outside");
	cr_assert_eq(gaps, outside);
	cr_assert_eq(inside - num(out, "fetched.shared") + outside, total);
	cr_assert_eq(num(out, "fetched.in_segments") + outside, total);
	cr_assert_leq(num(out, "done.touched_pages"), total);
	/* The model's VMA-limited total never exceeds what it predicts
	 * for current kernels. */
	cr_assert_leq(num(out, "vma_limit.model_limited_pages"),
		      num(out, "vma_limit.model_current_pages"));
	free(out);
	free(err);
}

static void write_file(const char *name, const void *data, size_t len)
{
	char p[300];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	cr_assert(f);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* An ELF64 x86-64 header with one program header @ph after it. */
static void write_elf(const char *name, unsigned machine, unsigned cls,
		      const Elf64_Phdr *ph, unsigned phnum)
{
	unsigned char buf[sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr)];
	Elf64_Ehdr eh;

	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = (unsigned char)cls;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = (Elf64_Half)machine;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (Elf64_Half)phnum;
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + sizeof(eh), ph, sizeof(*ph));
	write_file(name, buf, sizeof(buf));
}

/* Exit 2, @what on stderr, nothing on stdout, no mount left. */
static void expect_bad(const char *name, const char *what)
{
	char arg[320], *out, *err;
	const char *args[] = { "run", "elf-startup", arg, NULL };

	if (name[0] == '/')
		snprintf(arg, sizeof(arg), "binary=%s", name);
	else
		snprintf(arg, sizeof(arg), "binary=%s/%s", dir, name);
	cr_assert_eq(run(args, &out, &err), 2, "%s: exit status, stderr: %s",
		     name, err);
	cr_assert(strstr(err, "PARAM binary"), "%s: %s", name, err);
	cr_assert(strstr(err, what), "%s: '%s' not in: %s", name, what, err);
	cr_assert_eq(out[0], '\0', "%s: stdout: %s", name, out);
	free(out);
	free(err);
}

Test(elf_startup, bad_binaries_exit_2)
{
	Elf64_Phdr ph = { .p_type = PT_LOAD,
			  .p_flags = PF_R | PF_X,
			  .p_filesz = 4096,
			  .p_memsz = 4096,
			  .p_align = 4096 };
	char fifo[300];

	expect_bad("/nonexistent/prog", "No such file");
	expect_bad(dir, "not a regular file");
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	expect_bad("fifo", "not a regular file");
	write_file("text", "#!/bin/sh\necho hello\n", 21);
	expect_bad("text", "not an ELF file");
	write_file("short", "\177ELF\2\1\1", 7);
	expect_bad("short", "truncated ELF header");
	write_elf("elf32", EM_X86_64, ELFCLASS32, &ph, 1);
	expect_bad("elf32", "32-bit");
	write_elf("arm64", EM_AARCH64, ELFCLASS64, &ph, 1);
	expect_bad("arm64", "not x86-64");
	write_elf("phnum", EM_X86_64, ELFCLASS64, &ph, 40);
	expect_bad("phnum", "truncated program headers");
	ph.p_type = PT_NOTE;
	write_elf("noload", EM_X86_64, ELFCLASS64, &ph, 1);
	expect_bad("noload", "no PT_LOAD");
	ph.p_type = PT_LOAD;
	ph.p_offset = 1ull << 40;
	ph.p_vaddr = 1ull << 40;
	write_elf("offset", EM_X86_64, ELFCLASS64, &ph, 1);
	expect_bad("offset", "past the end of the file");
	ph.p_offset = 0;
	ph.p_vaddr = 0;
	ph.p_filesz = ~0ull;
	write_elf("filesz", EM_X86_64, ELFCLASS64, &ph, 1);
	expect_bad("filesz", "past the end of the file");
	/* Within the file, but p_memsz < p_filesz. */
	ph.p_filesz = 64;
	ph.p_memsz = 8;
	write_elf("memsz", EM_X86_64, ELFCLASS64, &ph, 1);
	expect_bad("memsz", "smaller than p_filesz");
}

Test(elf_startup, help_names_binary)
{
	const char *args[] = { "help", "elf-startup", NULL };
	char *out, *err;

	cr_assert_eq(run(args, &out, &err), 0, "%s", err);
	cr_assert(strstr(out, "binary=\"\""), "%s", out);
	cr_assert(strstr(out, "text_stride=8"), "%s", out);
	free(out);
	free(err);
}
