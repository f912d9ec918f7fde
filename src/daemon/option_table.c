// SPDX-License-Identifier: MIT
/*
 * Every option of the daemon, once: its name, whether it takes a value,
 * whether a config file may set it, and its --help text. The parser, the
 * config file reader, the "unknown key" message and --help all read this
 * table, so none of them lists the options again.
 */
#include "options_i.h"

#include <string.h>

#include "control.h"

/* --help: the column where option texts start, and the line width. */
#define HELP_COL 24
#define HELP_WIDTH 77

static const struct opt_desc opt_table[] = {
	{ "file", 0, OPT_FILE, true, true, SEC_FILES, "NAME:SIZE[:PATTERN]",
	  "serve a file (repeatable). NAME is relative to the mount and may "
	  "contain directories (a/b.bin); no ':' in names. SIZE is bytes "
	  "with an optional binary suffix K, M, G, T, P, E (KiB and KB "
	  "mean K too: 64MB is 64 MiB; 1 byte to 2^62 bytes; no memory is "
	  "spent per byte). PATTERN is"
	  "\n  stamp          (default) every 4 KiB page starts"
	  "\n                 with 'testfs page N file NAME', the"
	  "\n                 rest derives from (name, offset)"
	  "\n  zero           all zero bytes"
	  "\n  random[:SEED]  bytes derived from (SEED, offset)" },
	{ "backing", 0, OPT_BACKING, true, true, SEC_FILES, "DIR",
	  "also serve the regular files under DIR read-only, with their "
	  "names, sizes (fixed at start) and contents, read with io_uring "
	  "(O_DIRECT where the file system takes it). Subdirectories are "
	  "served; symbolic links, FIFOs, sockets and devices are skipped "
	  "with a warning. Given once; combines with --file" },
	{ "config", 0, OPT_CONFIG, true, false, SEC_FILES, "PATH",
	  "read options from PATH: one 'key value' per line (keys: %k; '#' "
	  "starts a comment). A regular text file of at most 1 MiB, lines of "
	  "at most 4096 bytes, no NUL byte. Options after --config override "
	  "it." },
	{ "ra-kb", 0, OPT_RA_KB, true, true, SEC_KNOBS, "N",
	  "the mount's read_ahead_kb (0..1048576), written to "
	  "/sys/class/bdi/<dev>/read_ahead_kb after mounting, before any file "
	  "is opened; needs root (otherwise a warning and the kernel's value, "
	  "128). Default: kernel. On a running mount: the ctl command "
	  "'ra-kb N'" },
	{ "max-pages", 0, OPT_MAX_PAGES, true, true, SEC_KNOBS, "N",
	  "largest FUSE_READ in pages (1..256; the kernel caps it at "
	  "/proc/sys/fs/fuse/max_pages_limit). Default 256" },
	{ "max-background", 0, OPT_MAX_BACKGROUND, true, true, SEC_KNOBS, "N",
	  "FUSE background requests in flight (1..65535). Default: kernel "
	  "(12)" },
	{ "congestion-threshold", 0, OPT_CONGESTION, true, true, SEC_KNOBS, "N",
	  "background requests at which the kernel drops async readahead "
	  "(1..max-background). Default: kernel (9), or 3/4 of "
	  "--max-background if given" },
	{ "threads", 0, OPT_THREADS, true, true, SEC_KNOBS, "N",
	  "request threads, at most (1..256; one more starts when a request "
	  "arrives with none left waiting): they read /dev/fuse at once and "
	  "answer in parallel; every read is logged in the kernel's order "
	  "(its FUSE unique), as with one thread. Default 1 (one request "
	  "at a time: readahead timing stays deterministic); 4 is 2-4x "
	  "faster for 4 and 16 readers (docs/benchmarks.md). With --transport uring, "
	  "ceil(N / queues) threads serve each ring queue (at most 32), each "
	  "with its own io_uring and 4 entries when there are several; the "
	  "/dev/fuse threads then serve what it still carries (INIT, FORGET, "
	  "INTERRUPT; everything after a fallback)" },
	{ "transport", 0, OPT_TRANSPORT, true, true, SEC_KNOBS, "dev|uring",
	  "how requests reach testfs: dev reads /dev/fuse; uring takes them "
	  "over FUSE over io_uring (Linux 6.14+), one queue per possible CPU, "
	  "each with its own ring, 32 entries and a thread (with --threads N: "
	  "ceil(N / queues) threads, each with its own ring and 4 entries), "
	  "pinned to that CPU while other queues take requests too and to "
	  "the other CPUs while its queue is the only one (one reader). "
	  "As root, testfs sets /sys/module/fuse/parameters/enable_uring to Y "
	  "if it is N. Where the kernel cannot, testfs says why and serves "
	  "/dev/fuse (.testfs/config: transport, transport_note). Default "
	  "dev" },
	{ "latency", 0, OPT_LATENCY, true, true, SEC_SLOW, "MODEL",
	  "latency of every data read that no --rule matches: none, fixed:DUR, "
	  "uniform:MIN-MAX, normal:MEAN,SD, lognormal:MEDIAN,SIGMA (random "
	  "ones take ,seed=N), bw:RATE, or a device: hdd, sata-ssd, nvme, "
	  "ufs4, nfs, optionally NAME:key=value,... (e.g. "
	  "ufs4:bw=1600MB/s,lat=80us,qd=32). DUR takes ns, us, ms, s; RATE "
	  "e.g. 500MB/s, 1GiB/s. Default none" },
	{ "rule", 0, OPT_RULE, true, true, SEC_SLOW,
	  "'file=NAME,pages=A-B,latency=MODEL'",
	  "latency for reads touching pages A-B of NAME (file= and pages= "
	  "optional, latency= last); repeatable, first match wins" },
	{ "error", 0, OPT_ERROR, true, true, SEC_SLOW,
	  "'file=NAME,pages=A-B,errno=EIO[,times=N|prob=P][,seed=N]'",
	  "answer reads touching the range with that errno (EIO, ENODATA, ... "
	  "or a number); repeatable" },
	{ "pause", 0, OPT_PAUSE, true, true, SEC_SLOW,
	  "'file=NAME,pages=A-B[,for=DURATION]'",
	  "hold reads touching the range unanswered until the ctl command "
	  "'resume' (or for DURATION after each arrives; at most 1h); "
	  "repeatable. Held reads are listed in .testfs/stats; unmounting "
	  "answers them" },
	{ "log", 0, OPT_LOG, true, true, SEC_LOG, "PATH",
	  "also write every record to PATH as JSON Lines (flushed when "
	  "clear/mark is acknowledged and at unmount; on a full disk only "
	  "whole lines, a loss line for the records it missed, and clear/mark "
	  "fail: testfs-log(5)). A new file is created "
	  "with mode 0600; an existing one must be a regular file of the "
	  "caller (it is truncated); a symbolic link (PATH itself or any "
	  "directory in it), a FIFO, a device or another user's file is "
	  "refused" },
	{ "log-capacity", 0, OPT_LOG_CAPACITY, true, true, SEC_LOG, "N",
	  "records kept in memory (16..2^30, rounded up to a power of two; "
	  "default 1048576, 144 bytes each, paid for as used (and 2 MiB "
	  "ahead), up to N x 144 bytes, and kept until exit: clear does not give it back). Overflow "
	  "is counted and reported" },
	{ "trace", 0, OPT_TRACE, false, true, SEC_TRACE, NULL,
	  "require it: fail to start without it. Default: on when possible; "
	  "if not, causes are 'unknown' and .testfs/config says why" },
	{ "no-trace", 0, OPT_NO_TRACE, false, true, SEC_TRACE, NULL,
	  "do not trace" },
	{ "trace-reads", 0, OPT_TRACE_READS, false, true, SEC_TRACE, NULL,
	  "also follow read(2) page-cache lookups (mm_filemap_get_pages): "
	  "read(2) accesses, their lateness, wasted pages of read(2) streams. "
	  "It fires once per read(2) call: +250 ns each, 10-20% slower 4 KiB "
	  "reads from the cache" },
	{ "trace-folios", 0, OPT_TRACE_FOLIOS, false, true, SEC_TRACE, NULL,
	  "record every folio entering the page cache, order 0 included (one "
	  "event per 4 KiB page where the kernel allocates order-0 folios: "
	  "about 10% slower cold reads). Default: only large folios (order > "
	  "0, filtered in the kernel); libtestfs counts the other pages of "
	  "answered reads as order 0" },
	{ "tracefs", 0, OPT_TRACEFS, true, true, SEC_TRACE, "DIR",
	  "use the tracefs mounted at DIR. Default: /sys/kernel/tracing, else "
	  "where /proc/mounts has one; mounted on /sys/kernel/tracing if "
	  "none" },
	{ "foreground", 'f', OPT_FOREGROUND, false, false, SEC_PROCESS, NULL,
	  "stay in the foreground (default: detach once the mount is ready, "
	  "or exit with the reason it failed)" },
	{ "debug", 'd', OPT_DEBUG, false, false, SEC_PROCESS, NULL,
	  "print every FUSE request (implies -f)" },
	{ "quiet", 'q', OPT_QUIET, false, true, SEC_PROCESS, NULL,
	  "do not print the ready line" },
	{ "no-auto-unmount", 0, OPT_NO_AUTO_UNMOUNT, false, true, SEC_PROCESS,
	  NULL,
	  "do not ask fusermount3 to unmount if testfs dies (by default even "
	  "a SIGKILL leaves no mount behind)" },
	{ "rmdir", 0, OPT_RMDIR, false, false, SEC_PROCESS, NULL,
	  "remove MOUNTPOINT (an empty directory) after unmounting, e.g. a "
	  "temporary one made for testfs" },
	{ "ready-fd", 0, OPT_READY_FD, true, false, SEC_PROCESS, "FD",
	  "write 'ready\\n' to FD once the mount is ready (or 'error: REASON\\n' if start-up fails)" },
	{ "watch-pid", 0, OPT_WATCH_PID, true, false, SEC_PROCESS, "PID",
	  "unmount and exit when process PID exits" },
	{ "help", 'h', OPT_HELP, false, false, SEC_PROCESS, NULL, "this text" },
	{ "version", 'V', OPT_VERSION, false, false, SEC_PROCESS, NULL,
	  "print the version" },
};

#define N_OPTS (sizeof(opt_table) / sizeof(opt_table[0]))

/* The documented set served when no file is given. */
const char *const options_default_files[] = {
	"big.bin:256M:stamp",
	"small.bin:1M:stamp",
	"zero.bin:64M:zero",
	"random.bin:64M:random:1",
	"huge.bin:1T:stamp",
	"dir/nested.bin:4M:stamp",
	NULL,
};

/* Each group's title and the note after its options ("" for none). */
static const struct {
	const char *title;
	const char *note;
} sections[] = {
	[SEC_FILES] = { "Files:", "Without any file: %d." },
	[SEC_KNOBS] = { "Readahead knobs (effective values are reported at "
			"mount and in .testfs/config):",
			"" },
	[SEC_SLOW] = { "Slow storage (testfs(8) describes every model and "
		       "its parameters):",
		       "Delayed replies never block other requests." },
	[SEC_LOG] = { "Read log:", "" },
	[SEC_TRACE] = { "Kernel correlation (the readahead:* and filemap:* "
			"tracepoints of this mount, in a tracefs instance of "
			"its own; needs root and tracefs):",
			"With it every read gets a cause (sync, async, "
			"readaround, forced, single, direct) and its readahead "
			"window, and the log gets access records (faults and "
			"fault-around; read(2) with --trace-reads)." },
	[SEC_PROCESS] = { "Process:", "" },
};

const struct opt_desc *options_find_long(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < N_OPTS; i++)
		if (strlen(opt_table[i].name) == len &&
		    strncmp(opt_table[i].name, name, len) == 0)
			return &opt_table[i];
	return NULL;
}

const struct opt_desc *options_find_short(char c)
{
	size_t i;

	for (i = 0; i < N_OPTS; i++)
		if (c && opt_table[i].short_name == c)
			return &opt_table[i];
	return NULL;
}

const char *options_config_key(size_t i)
{
	size_t k;

	for (k = 0; k < N_OPTS; k++)
		if (opt_table[k].in_config && i-- == 0)
			return opt_table[k].name;
	return NULL;
}

void options_key_list(struct strbuf *sb, const char *sep, const char *last_sep)
{
	const char *key;
	size_t i;

	for (i = 0; (key = options_config_key(i)); i++) {
		if (i)
			strbuf_adds(sb,
				    options_config_key(i + 1) ? sep : last_sep);
		strbuf_adds(sb, key);
	}
}

/* The text of a section note or an option's help, with %k, %d filled. */
static void expand(struct strbuf *sb, const char *text)
{
	const char *p;
	size_t i;

	for (p = text; *p; p++) {
		if (p[0] == '%' && p[1] == 'k') {
			options_key_list(sb, ", ", ", ");
			p++;
		} else if (p[0] == '%' && p[1] == 'd') {
			for (i = 0; options_default_files[i]; i++)
				strbuf_addf(sb, "%s%s", i ? ", " : "",
					    options_default_files[i]);
			p++;
		} else {
			strbuf_addc(sb, *p);
		}
	}
}

/*
 * Appends @text to @out, which ends in column @col, wrapping words at
 * HELP_WIDTH with continuation lines indented by @indent. A "\n" in the
 * text starts a line that is printed as written (a table row).
 */
static void wrap(struct strbuf *out, size_t col, size_t indent,
		 const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p, *end;
	bool line_start = true;
	size_t len;

	expand(&sb, text);
	for (p = sb.data ? sb.data : ""; *p;) {
		if (*p == '\n') {
			end = strchrnul(p + 1, '\n');
			strbuf_addf(out, "\n%*s%.*s", (int)indent, "",
				    (int)(end - p - 1), p + 1);
			p = end;
			continue;
		}
		if (*p == ' ') {
			p++;
			continue;
		}
		end = p + strcspn(p, " \n");
		len = (size_t)(end - p);
		if (!line_start && col + 1 + len > HELP_WIDTH) {
			strbuf_addf(out, "\n%*s", (int)indent, "");
			col = indent;
			line_start = true;
		}
		if (!line_start) {
			strbuf_addc(out, ' ');
			col++;
		}
		strbuf_add(out, p, len);
		col += len;
		line_start = false;
		p = end;
	}
	strbuf_adds(out, "\n");
	strbuf_free(&sb);
}

static void option_help(struct strbuf *out, const struct opt_desc *d)
{
	size_t start = out->len, col;

	strbuf_adds(out, "  ");
	if (d->short_name)
		strbuf_addf(out, "-%c, ", d->short_name);
	strbuf_addf(out, "--%s", d->name);
	if (d->arg)
		strbuf_addf(out, " %s", d->arg);
	col = out->len - start;
	if (col + 2 <= HELP_COL) {
		strbuf_addf(out, "%*s", (int)(HELP_COL - col), "");
		col = HELP_COL;
	} else if (col + 2 <= HELP_WIDTH / 2 + 10) {
		/* A long head leaves room for its text on the same line. */
		strbuf_adds(out, "  ");
		col += 2;
	} else {
		strbuf_addf(out, "\n%*s", HELP_COL, "");
		col = HELP_COL;
	}
	wrap(out, col, HELP_COL, d->help);
}

/* The ctl line: commands joined by " | ", broken only between them. */
static void control_help(struct strbuf *out)
{
	const char *usage;
	size_t i, col = 26;

	strbuf_adds(
		out,
		"Control directory MOUNTPOINT/.testfs/ (testfs-control(5)):\n"
		"  log      records since the last clear, JSON Lines (not "
		"itself logged)\n"
		"  log.bin  the same records in binary (128 bytes each; "
		"testfs-log(5))\n"
		"  ctl      write commands:");
	for (i = 0; (usage = control_command_usage(i)); i++) {
		if (i && col + 3 + strlen(usage) > HELP_WIDTH) {
			strbuf_adds(out, " |\n          ");
			col = 10;
		} else if (i) {
			strbuf_adds(out, " |");
			col += 2;
		}
		strbuf_addf(out, " %s", usage);
		col += 1 + strlen(usage);
	}
	strbuf_adds(out, "\n");
	strbuf_adds(out,
		    "  error    why the last rejected command was rejected\n"
		    "  config   effective settings (JSON)\n"
		    "  stats    counters (JSON)\n");
}

void options_usage(FILE *f)
{
	struct strbuf out = STRBUF_INIT;
	size_t i;

	strbuf_adds(&out,
		    "Usage: testfs [OPTIONS] MOUNTPOINT\n"
		    "\n"
		    "Serves read-only synthetic files over FUSE and records "
		    "every page range the\n"
		    "kernel reads from them (MOUNTPOINT/.testfs/log). The "
		    "manual is testfs(8);\n"
		    "the log's formats are in testfs-log(5).\n");
	for (i = 0; i < N_OPTS; i++) {
		const struct opt_desc *d = &opt_table[i];

		if (i == 0 || opt_table[i - 1].section != d->section) {
			strbuf_adds(&out, "\n");
			wrap(&out, 0, 0, sections[d->section].title);
		}
		option_help(&out, d);
		if ((i + 1 == N_OPTS ||
		     opt_table[i + 1].section != d->section) &&
		    sections[d->section].note[0]) {
			strbuf_adds(&out, "  ");
			wrap(&out, 2, 2, sections[d->section].note);
		}
	}
	strbuf_adds(&out, "\n");
	control_help(&out);
	strbuf_adds(&out, "\n"
			  "Stop with fusermount3 -u MOUNTPOINT, SIGTERM or "
			  "SIGINT.\n"
			  "Exit status: 0 success, 1 runtime failure, 2 bad "
			  "command line or config.\n");
	if (out.oom)
		fputs("testfs: out of memory\n", f);
	else
		fwrite(out.data, 1, out.len, f);
	strbuf_free(&out);
}
