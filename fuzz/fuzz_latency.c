// SPDX-License-Identifier: MIT
/*
 * Latency models (src/slow/latency.c, devices.c, units.c): the input is a
 * model spec as --latency takes it. A spec refused leaves *out alone and
 * says why; a spec accepted formats canonically, the canonical text parses
 * to a model that formats the same, and both give the same delays for the
 * same requests (models are reproducible from their spec).
 */
#include <errno.h>

#include "fuzz.h"

#include "strbuf.h"
#include "latency.h"

/* A few requests at increasing times: sequential, random, huge. */
static const struct {
	uint64_t dt, off, len;
} reqs[] = {
	{ 0, 0, 4096 },
	{ 1000, 4096, 131072 },
	{ 0, 1ull << 40, 1u << 20 },
	{ 5000000, 12345, 1 },
	{ 1, UINT64_MAX - 4096, 4096 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct latency_model *m = NULL, *m2 = NULL;
	char *spec = fuzz_str(data, size);
	char err[512] = "";
	uint64_t now = 1000000000ull;
	size_t i;
	int ret;

	ret = latency_parse(spec, &m, err, sizeof(err));
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL || ret == -ENOMEM, "returned %d",
			   ret);
		FUZZ_CHECK(err[0], "refused without a message");
		FUZZ_CHECK(!m, "*out written on failure");
		goto out;
	}
	latency_format(m, &a);
	FUZZ_CHECK(!a.oom && a.data, "format failed");
	ret = latency_parse(a.data, &m2, err, sizeof(err));
	FUZZ_CHECK(ret == 0, "'%s' formats as '%s', refused: %s", spec, a.data,
		   err);
	latency_format(m2, &b);
	FUZZ_CHECK(strcmp(a.data, b.data) == 0,
		   "'%s' formats as '%s', which formats as '%s'", spec, a.data,
		   b.data);
	FUZZ_CHECK(latency_is_none(m) == latency_is_none(m2), "none differs");
	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		uint64_t d1, d2;

		now += reqs[i].dt;
		d1 = latency_delay(m, now, reqs[i].off, reqs[i].len);
		d2 = latency_delay(m2, now, reqs[i].off, reqs[i].len);
		FUZZ_CHECK(d1 == d2, "'%s': delay %zu: %llu vs %llu", a.data, i,
			   (unsigned long long)d1, (unsigned long long)d2);
		if (latency_is_none(m))
			FUZZ_CHECK(d1 == 0, "none delays %llu",
				   (unsigned long long)d1);
	}
out:
	latency_free(m);
	latency_free(m2);
	strbuf_free(&a);
	strbuf_free(&b);
	free(spec);
	return 0;
}
