// SPDX-License-Identifier: MIT
/*
 * The device models: named parameter sets over one queueing model (qd
 * slots, one transfer channel), and hdd's seek and rotation. latency.h
 * documents the queueing rules for users.
 *
 * Where the defaults come from (rounded typical figures from datasheets
 * and standards; none is a measurement of a particular device):
 *
 * sata-ssd: lat=90us is the middle of the 80-100 us that SATA TLC SSDs take
 *   for a 4 KiB random read at queue depth 1. bw=530MB/s: SATA III signals
 *   6 Gb/s with 8b/10b coding, 600 MB/s on the line, and drives quote
 *   530-560 MB/s sequential reads once the protocol has taken its share.
 *   qd=32 is the NCQ limit of SATA (32 outstanding commands).
 * nvme: lat=60us, from the 50-90 us of queue-depth-1 4 KiB reads on PCIe 3/4
 *   TLC drives. bw=3500MB/s is the sequential read figure of PCIe 3.0 x4
 *   drives (the link carries about 3.94 GB/s). qd=64 is a choice, not a
 *   limit of NVMe (which allows 64K commands per queue): well above the 12
 *   background requests FUSE sends by default, so it rarely binds.
 * ufs4: lat=100us, a typical UFS random read latency, rounded. bw=4200MB/s
 *   is the sequential read speed announced for JEDEC UFS 4.0 devices (two
 *   lanes of M-PHY HS-G5). qd=32: the UFS host controller's transfer
 *   request list has 32 slots (JEDEC UFSHCI).
 * nfs: rtt=500us, a typical NFS READ round trip on a 1 GbE LAN with the
 *   server's work included. bw=117MB/s: 1 Gb/s is 125 MB/s on the wire, and
 *   Ethernet, IP and TCP headers leave about 117 MB/s of payload at
 *   1500-byte frames (1448 of every 1538 bytes). qd=16 is the historical
 *   default of the Linux RPC slot table (sunrpc.tcp_slot_table_entries);
 *   newer kernels grow the table on demand.
 * hdd: seek_min=1ms and seek_max=15ms are the track-to-track (0.5-1 ms) and
 *   full-stroke (15-20 ms) seeks of 7200 rpm datasheets. span=1T, the
 *   distance at which a seek is full-stroke, is a choice: seeks within a
 *   test file of a few GiB stay short, as they would on a real disk.
 *   rpm=7200 is 8.33 ms per revolution, 4.17 ms on average. bw=160MB/s is
 *   a typical sustained read of a 7200 rpm desktop drive (150-250 MB/s,
 *   outer tracks faster). qd=1: one request at a time, no NCQ reordering.
 *   The seek curve seek_min + (seek_max - seek_min) * sqrt(d / span) follows
 *   the square-root shape of short seeks (Ruemmler and Wilkes, "An
 *   introduction to disk drive modeling", 1994).
 */
#include "latency_i.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "units.h"

#define US 1000ull
#define MS 1000000ull
#define MB 1000000ull
#define QD_MAX 1024
#define RPM_MAX 100000

struct device_params {
	uint64_t lat; /* access latency, ns (hdd: from seek and rotation) */
	uint64_t bw;  /* bytes per second */
	uint64_t qd;
	uint64_t seek_min, seek_max, span, rpm, seed; /* hdd only */
};

enum value_kind {
	VALUE_DURATION,
	VALUE_RATE,
	VALUE_QD,
	VALUE_SIZE,
	VALUE_RPM,
	VALUE_SEED,
};

struct device_key {
	const char *name;
	enum value_kind kind;
	size_t offset;	      /* in struct device_params */
	const char *alias_of; /* accepted, never written; NULL for real keys */
};

#define KEY(name, kind, field)                                                 \
	{                                                                      \
		name, kind, offsetof(struct device_params, field), NULL        \
	}

static const struct device_key ssd_keys[] = {
	KEY("lat", VALUE_DURATION, lat),
	KEY("bw", VALUE_RATE, bw),
	KEY("qd", VALUE_QD, qd),
	{ NULL, 0, 0, NULL },
};

static const struct device_key nfs_keys[] = {
	KEY("rtt", VALUE_DURATION, lat),
	KEY("bw", VALUE_RATE, bw),
	KEY("qd", VALUE_QD, qd),
	{ "lat", VALUE_DURATION, offsetof(struct device_params, lat), "rtt" },
	{ NULL, 0, 0, NULL },
};

static const struct device_key hdd_keys[] = {
	KEY("seek_min", VALUE_DURATION, seek_min),
	KEY("seek_max", VALUE_DURATION, seek_max),
	KEY("span", VALUE_SIZE, span),
	KEY("rpm", VALUE_RPM, rpm),
	KEY("bw", VALUE_RATE, bw),
	KEY("qd", VALUE_QD, qd),
	KEY("seed", VALUE_SEED, seed),
	{ NULL, 0, 0, NULL },
};

struct device_type {
	const char *name;
	const struct device_key *keys; /* in canonical order */
	bool seeks;		       /* hdd: latency from seek and rotation */
	struct device_params defaults;
};

static const struct device_type device_types[] = {
	{ "sata-ssd",
	  ssd_keys,
	  false,
	  { .lat = 90 * US, .bw = 530 * MB, .qd = 32 } },
	{ "nvme",
	  ssd_keys,
	  false,
	  { .lat = 60 * US, .bw = 3500 * MB, .qd = 64 } },
	{ "ufs4",
	  ssd_keys,
	  false,
	  { .lat = 100 * US, .bw = 4200 * MB, .qd = 32 } },
	{ "nfs",
	  nfs_keys,
	  false,
	  { .lat = 500 * US, .bw = 117 * MB, .qd = 16 } },
	{ "hdd",
	  hdd_keys,
	  true,
	  { .seek_min = 1 * MS,
	    .seek_max = 15 * MS,
	    .span = 1ull << 40,
	    .rpm = 7200,
	    .bw = 160 * MB,
	    .qd = 1,
	    .seed = 0 } },
};

struct device_model {
	const struct device_type *type;
	struct device_params p;
	struct prng rng;
	uint64_t *slot_free; /* qd times at which each slot is free */
	uint64_t channel_free;
	uint64_t head; /* hdd: the byte after the previous request */
};

static uint64_t *param(struct device_params *p, const struct device_key *k)
{
	return (uint64_t *)((char *)p + k->offset);
}

static uint64_t param_get(const struct device_params *p,
			  const struct device_key *k)
{
	return *(const uint64_t *)((const char *)p + k->offset);
}

/* "lat, bw or qd", for messages. */
static void list_keys(const struct device_type *t, struct strbuf *sb)
{
	const struct device_key *k;

	for (k = t->keys; k->name; k++) {
		if (k != t->keys)
			strbuf_adds(sb, k[1].name ? ", " : " or ");
		strbuf_adds(sb, k->name);
		if (k->alias_of)
			strbuf_addf(sb, " (for %s)", k->alias_of);
	}
}

static int parse_value(const char *spec, const struct device_key *k,
		       const char *val, struct device_params *p, char *err,
		       size_t errlen)
{
	const char *why = NULL, *expected = "";
	uint64_t *v = param(p, k);
	int ret = 0;

	switch (k->kind) {
	case VALUE_DURATION:
		ret = parse_duration(val, v, &why);
		break;
	case VALUE_RATE:
		ret = parse_rate(val, v, &why);
		break;
	case VALUE_QD:
		ret = parse_uint(val, 1, QD_MAX, v, &why);
		expected = "; expected an integer 1..1024";
		break;
	case VALUE_SIZE:
		ret = parse_size(val, 0, v, &why);
		break;
	case VALUE_RPM:
		ret = parse_uint(val, 1, RPM_MAX, v, &why);
		expected = "; expected an integer 1..100000";
		break;
	case VALUE_SEED:
		ret = parse_uint(val, 0, UINT64_MAX, v, &why);
		expected = "; expected an integer 0..2^64-1";
		break;
	}
	if (ret) {
		latency_error(err, errlen, spec, "bad %s '%s' (%s%s)", k->name,
			      val, why, expected);
		return -EINVAL;
	}
	return 0;
}

static int parse_setting(const char *spec, const struct device_type *t,
			 char *tok, struct device_params *p, unsigned *seen,
			 char *err, size_t errlen)
{
	struct strbuf keys = STRBUF_INIT;
	const struct device_key *k = NULL;
	char *val = strchr(tok, '=');
	unsigned bit;

	if (val) {
		*val++ = '\0';
		for (k = t->keys; k->name; k++) {
			if (strcmp(k->name, tok) == 0)
				break;
		}
	}
	if (!val || !k->name) {
		list_keys(t, &keys);
		latency_error(err, errlen, spec,
			      val ? "unknown key '%s' for %s (expected %s)"
				  : "'%s' is not key=value (%s takes %s)",
			      tok, t->name, keys.oom ? "" : keys.data);
		strbuf_free(&keys);
		return -EINVAL;
	}
	/* An alias shares its field, so "rtt=1ms,lat=2ms" is a repeat too. */
	bit = 1u << (k->offset / sizeof(uint64_t));
	if (*seen & bit) {
		latency_error(err, errlen, spec, "%s= given twice", tok);
		return -EINVAL;
	}
	*seen |= bit;
	return parse_value(spec, k, val, p, err, errlen);
}

int device_parse(const char *spec, const char *name, const char *args,
		 struct device_model **out, char *err, size_t errlen)
{
	const struct device_type *t = NULL;
	struct device_model *d;
	char *copy = NULL, *next, *tok;
	unsigned seen = 0;
	size_t i;
	int ret = 0;

	for (i = 0; i < sizeof(device_types) / sizeof(device_types[0]); i++) {
		if (strcmp(name, device_types[i].name) == 0)
			t = &device_types[i];
	}
	if (!t)
		return -ENOENT;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->type = t;
	d->p = t->defaults;
	if (args) {
		copy = strdup(args);
		if (!copy) {
			ret = -ENOMEM;
			goto out_free;
		}
	}
	next = copy;
	while (!ret && next) {
		tok = strsep(&next, ",");
		ret = parse_setting(spec, t, tok, &d->p, &seen, err, errlen);
	}
	if (!ret && d->p.seek_min > d->p.seek_max) {
		latency_error(
			err, errlen, spec,
			"seek_min is more than seek_max (expected seek_min <= seek_max)");
		ret = -EINVAL;
	}
	if (ret)
		goto out_free;
	d->slot_free = calloc(d->p.qd, sizeof(*d->slot_free));
	if (!d->slot_free) {
		ret = -ENOMEM;
		goto out_free;
	}
	prng_seed(&d->rng, d->p.seed);
	*out = d;
	free(copy);
	return 0;
out_free:
	free(copy);
	device_free(d);
	return ret;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* hdd: seek and rotation to reach @off from where the head is. */
static uint64_t hdd_access(struct device_model *d, uint64_t off, uint64_t len)
{
	const struct device_params *p = &d->p;
	uint64_t dist, frac, seek, rev_ns;

	if (off == d->head) {
		d->head = add_sat(off, len);
		return 0;
	}
	dist = off > d->head ? off - d->head : d->head - off;
	d->head = add_sat(off, len);
	if (dist > p->span)
		dist = p->span;
	/* sqrt(dist / span) in 31-bit fixed point, exactly, without libm. */
	frac = int_sqrt((uint64_t)(((unsigned __int128)dist << 62) / p->span));
	seek = p->seek_min +
	       (uint64_t)(((unsigned __int128)(p->seek_max - p->seek_min) *
			   frac) >>
			  31);
	rev_ns = 60000000000ull / p->rpm;
	return seek + prng_below(&d->rng, rev_ns);
}

uint64_t device_delay(struct device_model *d, uint64_t now_ns, uint64_t off,
		      uint64_t len)
{
	uint64_t start, lat, xfer, end;
	uint64_t slot = 0, i;

	for (i = 1; i < d->p.qd; i++) {
		if (d->slot_free[i] < d->slot_free[slot])
			slot = i;
	}
	start = max_u64(now_ns, d->slot_free[slot]);
	lat = d->type->seeks ? hdd_access(d, off, len) : d->p.lat;
	xfer = max_u64(add_sat(start, lat), d->channel_free);
	end = add_sat(xfer, units_transfer_ns(len, d->p.bw));
	d->channel_free = end;
	d->slot_free[slot] = end;
	return end - now_ns;
}

void device_format(const struct device_model *d, struct strbuf *sb)
{
	const struct device_key *k;

	strbuf_adds(sb, d->type->name);
	for (k = d->type->keys; k->name; k++) {
		uint64_t v = param_get(&d->p, k);

		if (k->alias_of)
			continue;
		strbuf_addf(sb, "%c%s=", k == d->type->keys ? ':' : ',',
			    k->name);
		switch (k->kind) {
		case VALUE_DURATION:
			units_format_duration(sb, v);
			break;
		case VALUE_RATE:
			units_format_rate(sb, v);
			break;
		case VALUE_SIZE:
			units_format_size(sb, v);
			break;
		default:
			strbuf_addf(sb, "%" PRIu64, v);
			break;
		}
	}
}

void device_free(struct device_model *d)
{
	if (!d)
		return;
	free(d->slot_free);
	free(d);
}
