// SPDX-License-Identifier: MIT
/*
 * Latency rules and error rules (src/slow/rule_spec.c, rules.c): each
 * input line is one operation on a rule set, as --latency, --rule,
 * --error and the ctl commands apply them:
 *   d MODEL   the default model      l SPEC   a latency rule
 *   e SPEC    an error rule          c        rules clear
 *   r NAME    a read of NAME at a few offsets
 * A refused spec must say why and change nothing visible; the JSON of the
 * set must stay one object without raw control characters.
 */
#include <errno.h>

#include "fuzz.h"

#include "strbuf.h"
#include "rules.h"

#define MAX_LINES 64

static void read_of(struct rule_set *rs, const char *name, uint64_t *now)
{
	static const uint64_t offs[] = { 0, 4096, 40960, 1ull << 40,
					 UINT64_MAX - 4095 };
	struct rule_verdict v;
	size_t i;

	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		*now += 100000;
		rules_decide(rs, name, offs[i], 4096 << (i % 3), *now, &v);
		FUZZ_CHECK(v.err >= 0 && v.err < 4096, "errno %d", v.err);
		FUZZ_CHECK(v.latency_rule >= -1 && v.error_rule >= -1,
			   "rule index %d %d", v.latency_rule, v.error_rule);
		FUZZ_CHECK(!v.err || v.error_rule >= 0, "error without rule");
	}
}

static void check_json(struct rule_set *rs, struct strbuf *sb)
{
	size_t i;

	strbuf_reset(sb);
	rules_format_json(rs, sb);
	FUZZ_CHECK(!sb->oom && sb->len >= 2, "no JSON");
	FUZZ_CHECK(sb->data[0] == '{' && sb->data[sb->len - 1] == '}', "%s",
		   sb->data);
	for (i = 0; i < sb->len; i++)
		FUZZ_CHECK((unsigned char)sb->data[i] >= 0x20,
			   "raw control character at %zu in %s", i, sb->data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
	char *buf, *lines[MAX_LINES];
	struct rule_set *rs;
	uint64_t now = 1;
	size_t n, i;

	if (rules_new(&rs))
		return 0;
	n = fuzz_split(data, size, '\n', &buf, lines, MAX_LINES);
	for (i = 0; i < n; i++) {
		const char *arg = lines[i][0] ? lines[i] + 1 : lines[i];
		char err[512] = "";
		int ret = 0;

		if (*arg == ' ')
			arg++;
		check_json(rs, &before);
		switch (lines[i][0]) {
		case 'd':
			ret = rules_set_default(rs, arg, err, sizeof(err));
			break;
		case 'l':
			ret = rules_add_latency(rs, arg, err, sizeof(err));
			break;
		case 'e':
			ret = rules_add_error(rs, arg, err, sizeof(err));
			break;
		case 'c':
			rules_clear(rs);
			break;
		default:
			read_of(rs, arg, &now);
			break;
		}
		if (ret) {
			FUZZ_CHECK(ret == -EINVAL || ret == -ENOMEM,
				   "returned %d", ret);
			FUZZ_CHECK(err[0], "'%s' refused without a message",
				   lines[i]);
			check_json(rs, &after);
			FUZZ_CHECK(strcmp(before.data, after.data) == 0,
				   "'%s' refused but the set changed",
				   lines[i]);
		}
	}
	check_json(rs, &after);
	strbuf_free(&before);
	strbuf_free(&after);
	rules_free(rs);
	free(buf);
	return 0;
}
