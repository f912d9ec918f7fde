/* SPDX-License-Identifier: MIT */
/*
 * The FUSE over io_uring ABI (protocol 7.42, Linux 6.14), for systems
 * whose <linux/fuse.h> is older (Debian 12 ships 7.38). The names, values
 * and layouts are those of include/uapi/linux/fuse.h, where the kernel
 * defines them; a newer header is used as it is.
 */
#ifndef TESTFS_FUSE_URING_ABI_H
#define TESTFS_FUSE_URING_ABI_H

#include <linux/fuse.h>
#include <stdint.h>

#ifndef FUSE_OVER_IO_URING
/* INIT flag: offered by the kernel when enable_uring is on; the server
 * sets it in its reply (bit 9 of flags2) to use the ring. */
#define FUSE_OVER_IO_URING (1ULL << 41)
#endif

#if FUSE_KERNEL_MINOR_VERSION < 42
#define FUSE_URING_IN_OUT_HEADER_SZ 128
#define FUSE_URING_OP_IN_OUT_SZ 128

struct fuse_uring_ent_in_out {
	uint64_t flags;
	uint64_t commit_id;  /* the request's unique */
	uint32_t payload_sz; /* bytes used in the payload buffer */
	uint32_t padding;
	uint64_t reserved;
};

struct fuse_uring_req_header {
	char in_out[FUSE_URING_IN_OUT_HEADER_SZ]; /* fuse_in/out_header */
	char op_in[FUSE_URING_OP_IN_OUT_SZ];	  /* the opcode's argument */
	struct fuse_uring_ent_in_out ring_ent_in_out;
};

enum fuse_uring_cmd {
	FUSE_IO_URING_CMD_INVALID = 0,
	FUSE_IO_URING_CMD_REGISTER = 1,
	FUSE_IO_URING_CMD_COMMIT_AND_FETCH = 2,
};

/* In the 80-byte command area of a 128-byte SQE. */
struct fuse_uring_cmd_req {
	uint64_t flags;
	uint64_t commit_id;
	uint16_t qid;
	uint8_t padding[6];
};
#endif

#endif
