// SPDX-License-Identifier: MIT
/*
 * Commands written to MOUNT/.testfs/ctl (src/ctl/commands.c): the input is
 * a batch of lines as one write() delivers it. The commands run against a
 * daemon state without a mount: an empty file set, a small read log and
 * the rule set, so clear, mark, latency, rule, error, rules and the
 * refusals all run for real. Not covered here: control_write() and
 * control_flush() (they answer a FUSE request) and drop-cache of a file
 * that exists (it invalidates pages through the mount); mount_ctl tests
 * those against a real mount.
 *
 * The parser's functions are static, so this file includes commands.c.
 */
#include "commands.c"

#include "options.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct options opts;
	struct testfs t;
	uint64_t seq;
	char *text;
	int err;

	options_init(&opts);
	memset(&t, 0, sizeof(t));
	t.opts = &opts;
	t.mountpoint = (char *)"/nonexistent/testfs-fuzz";
	t.page_size = 4096;
	testfs_init(&t);
	if (fileset_init(&t.files) || log_ring_init(&t.log, LOG_RING_MIN) ||
	    rules_new(&t.rules))
		abort();

	text = fuzz_str(data, size);
	(void)needs_worker(text);
	(void)count_commands(text);
	err = run_batch(&t, text);
	if (err) {
		FUZZ_CHECK(err < 0, "returned %d", err);
		FUZZ_CHECK(t.error[0], "refused without a message");
		FUZZ_CHECK(
			atomic_load(&t.stats.ctl_rejected) == 1,
			"rejections %llu",
			(unsigned long long)atomic_load(&t.stats.ctl_rejected));
	}
	/* The log keeps counting: one sequence number per mark. */
	seq = atomic_load(&t.log.head);
	FUZZ_CHECK(seq == atomic_load(&t.stats.marks),
		   "%llu records, %llu marks", (unsigned long long)seq,
		   (unsigned long long)atomic_load(&t.stats.marks));
	free(text);
	testfs_destroy(&t);
	rules_free(t.rules);
	log_ring_destroy(&t.log);
	fileset_destroy(&t.files);
	options_free(&opts);
	return 0;
}
