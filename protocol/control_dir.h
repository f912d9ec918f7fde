/* SPDX-License-Identifier: MIT */
/*
 * MOUNT/.testfs/: the names a client of a running daemon relies on. The
 * daemon serves these files; libtestfs (and through it every in-tree
 * client) reads and writes them. Kept here, next to the log.bin layout,
 * because renaming one breaks clients built against another version.
 *
 * config is one JSON object. The members clients read:
 *   "version"            the daemon's version string
 *   "mountpoint"         where it is mounted
 *   "kernel"             uname release
 *   "ra_kb", "max_pages", "max_background", "congestion_threshold":
 *                        {"requested": N|null, "effective": N|null}
 *   "log_capacity"       records the ring holds
 *   "slow"               {"default": "MODEL", ...} (the latency rules)
 *   "trace"              {"on": bool, "why": "...", "reads": bool, ...}
 *   "files"              [{"name": "...", "ino": N, "size": N,
 *                          "pattern": "..."}, ...]
 * Other members may come and go; readers skip what they do not know.
 */
#ifndef TESTFS_CONTROL_DIR_H
#define TESTFS_CONTROL_DIR_H

/* The control directory, relative to the mount's root. */
#define CONTROL_DIR ".testfs"

/* Its files, relative to the mount's root. */
#define CONTROL_CTL CONTROL_DIR "/ctl"	       /* commands, one per line */
#define CONTROL_ERROR CONTROL_DIR "/error"     /* why the last one failed */
#define CONTROL_CONFIG CONTROL_DIR "/config"   /* settings (JSON) */
#define CONTROL_LOG_BIN CONTROL_DIR "/log.bin" /* log_record.h */
#define CONTROL_LOG CONTROL_DIR "/log"	       /* JSON Lines */
#define CONTROL_STATS CONTROL_DIR "/stats"     /* counters (JSON) */

#endif
