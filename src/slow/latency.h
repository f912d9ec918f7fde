/* SPDX-License-Identifier: MIT */
/*
 * Latency models: how long testfs waits before answering a read.
 *
 * A MODEL is one of
 *
 *   none                        no delay
 *   fixed:DUR                   exactly DUR
 *   uniform:MIN-MAX[,seed=N]    uniform in [MIN, MAX], MIN <= MAX
 *   normal:MEAN,SD[,seed=N]     normal; a draw below 0 gives 0
 *   lognormal:MEDIAN,SIGMA[,seed=N]
 *                               MEDIAN * e^(SIGMA * Z), Z standard normal;
 *                               SIGMA is a plain number, 0 < SIGMA <= 10,
 *                               up to 6 decimals
 *   bw:RATE                     len / RATE on one channel shared by all
 *                               requests: a transfer starts when the
 *                               previous one has ended
 *   NAME[:key=value,...]        a device model (below)
 *
 * DUR is a decimal number with ns, us, ms or s ("2.5us"), at most 1h.
 * RATE is a decimal number with B, kB, MB, GB, TB (powers of 1000) or KiB,
 * MiB, GiB, TiB (powers of 1024) and "/s" ("1.6GB/s"). Random models are
 * reproducible: the same spec (seed 0 when none is given) gives the same
 * sequence of delays, on any machine. Random draws are rounded to the
 * nearest nanosecond. Every delay, including those derived from a rate
 * (bw:, a device's bw=) and a device's queue, is capped at 1h: a rate as
 * low as 1B/s is accepted, and a read then waits at most 1h.
 *
 * Device models queue requests. A device has qd slots, each busy until
 * some time, and one transfer channel. A request arriving at now starts
 * service at max(now, the earliest time a slot is free); its transfer
 * starts at max(service start + access latency, the time the channel is
 * free) and lasts len / bw; the channel and the slot are busy until the
 * transfer ends, and the delay is transfer end - now. So up to qd requests
 * overlap their access latency while they share the bandwidth. The model
 * is deterministic (hdd draws its rotation from its seed).
 *
 * Device defaults (rounded typical figures from datasheets and standards,
 * not measurements of a particular device):
 *
 *   sata-ssd  lat=90us   4 KiB random reads at queue depth 1 on SATA TLC
 *                        SSDs take roughly 80-100 us; a typical value.
 *             bw=530MB/s SATA III runs at 6 Gb/s with 8b/10b coding, 600
 *                        MB/s on the line; drives quote 530-560 MB/s for
 *                        sequential reads after protocol overhead.
 *             qd=32      the NCQ limit of SATA: 32 outstanding commands.
 *   nvme      lat=60us   queue-depth-1 4 KiB reads on PCIe 3/4 TLC NVMe
 *                        drives take roughly 50-90 us; a typical value.
 *             bw=3500MB/s the sequential read figure of PCIe 3.0 x4 drives
 *                        (the link carries about 3.94 GB/s).
 *             qd=64      NVMe allows far deeper queues; 64 is a choice, well
 *                        above the 12 background requests FUSE sends by
 *                        default, so the queue rarely limits.
 *   ufs4      lat=100us  a typical UFS random read latency, rounded.
 *             bw=4200MB/s the sequential read speed announced for UFS 4.0
 *                        devices (JEDEC UFS 4.0, two lanes of M-PHY HS-G5).
 *             qd=32      the UFS host controller's transfer request list
 *                        has 32 slots (JEDEC UFSHCI).
 *   nfs       rtt=500us  (also lat=) an NFS READ round trip over a 1 GbE LAN,
 *                        network and server together; a typical value.
 *             bw=117MB/s 1 Gb/s is 125 MB/s on the wire; Ethernet, IP and
 *                        TCP headers leave about 117 MB/s of payload at
 *                        1500-byte frames.
 *             qd=16      the Linux RPC slot table's historical default
 *                        (sunrpc.tcp_slot_table_entries); newer kernels
 *                        grow it on demand.
 *   hdd       seek_min=1ms   track-to-track seek of 7200 rpm drives, about
 *                            0.5-1 ms in datasheets.
 *             seek_max=15ms  full-stroke seek, about 15-20 ms in datasheets.
 *             span=1T        the distance in bytes at which a seek becomes
 *                            full-stroke (a size as --file takes it: 1T,
 *                            500G, 4096); a choice, so that seeks within a
 *                            test file of a few GiB stay short.
 *             rpm=7200       8.33 ms per revolution, 4.17 ms on average.
 *             bw=160MB/s     sustained reads of 7200 rpm desktop drives are
 *                            150-250 MB/s (outer tracks faster); a typical
 *                            value.
 *             qd=1           one request at a time; no reordering (NCQ) is
 *                            modelled.
 *             seed=0         for the rotational position.
 *
 * A device's keys are the ones listed for it, in any order, each at most
 * once; qd is 1..1024, rpm 1..100000, and seek_min <= seek_max.
 *
 * hdd's access latency is seek + rotation. A request that starts where
 * the previous one ended (the head starts at offset 0) is sequential:
 * neither seek nor rotation. Otherwise seek = seek_min + (seek_max -
 * seek_min) * sqrt(min(distance, span) / span), the square-root curve of
 * short seeks (Ruemmler and Wilkes, "An introduction to disk drive
 * modeling", 1994), and rotation is uniform in [0, 60 / rpm s).
 *
 * Durations of transfers are floor(len * 10^9 / bw) nanoseconds.
 */
#ifndef TESTFS_SLOW_LATENCY_H
#define TESTFS_SLOW_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

struct latency_model;

/*
 * Parses MODEL @spec into a new model in *@out. Returns 0, -EINVAL with a
 * message in @err (up to @errlen bytes, NUL-terminated; @err may be NULL)
 * that quotes the offending part and says what was expected, e.g.
 * "latency 'fixed:2xs': bad duration '2xs' (expected a number with ns, us,
 * ms or s)", or -ENOMEM. *@out is left alone on error.
 */
int latency_parse(const char *spec, struct latency_model **out, char *err,
		  size_t errlen);

/*
 * The delay in nanoseconds for a read of @len bytes at @off arriving at
 * @now_ns (CLOCK_MONOTONIC). Random and device models change state on each
 * call; calls on one model must be serialised by the caller (no locking
 * inside). A NULL @m is "none" and returns 0.
 */
uint64_t latency_delay(struct latency_model *m, uint64_t now_ns, uint64_t off,
		       uint64_t len);

/*
 * Appends the canonical spec of @m to @sb, with every parameter
 * ("ufs4:lat=100us,bw=4200MB/s,qd=32", "normal:1ms,100us,seed=0"); parsing
 * it gives an identical model in its initial state. NULL gives "none".
 */
void latency_format(const struct latency_model *m, struct strbuf *sb);

/* True when @m is the model "none" (or NULL): no read is ever delayed. */
bool latency_is_none(const struct latency_model *m);

/* Frees @m; NULL is allowed. */
void latency_free(struct latency_model *m);

/*
 * Parses a duration: a decimal number with a required suffix ns, us, ms or
 * s ("100ns", "2.5us", "10ms", "1s"), rounded down to whole nanoseconds.
 * Returns 0, -EINVAL (empty, negative, garbage, no or unknown suffix) or
 * -ERANGE (longer than 1h); *@why then says why. *@ns is set only on
 * success.
 */
int parse_duration(const char *s, uint64_t *ns, const char **why);

/*
 * Parses a rate: a decimal number, a unit B, kB, MB, GB, TB (10^3 ...) or
 * KiB, MiB, GiB, TiB (2^10 ...), and a required "/s" ("1600MB/s",
 * "1.6GB/s", "500KiB/s"), rounded down to whole bytes per second. Returns
 * 0, -EINVAL (empty, negative, garbage, unknown unit, no "/s", zero) or
 * -ERANGE (above 2^64 - 1 B/s); *@why then says why.
 */
int parse_rate(const char *s, uint64_t *bytes_per_s, const char **why);

#endif
