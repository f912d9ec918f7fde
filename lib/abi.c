// SPDX-License-Identifier: MIT
/*
 * The exported entry points that take a sized struct (the rule at the top
 * of <testfs.h>): for each, the definition of its current symbol version,
 * which reads the caller's struct_size, and one for the version before
 * struct_size existed, which serves the layout those callers were built
 * with. Both call the library's full-size implementation (lib_full_*,
 * lib_i.h) on a struct of its own and copy what the caller has room for.
 *
 * A struct of the versions before TESTFS_0.5 is the current struct
 * without its leading struct_size: the same fields at offsets
 * sizeof(size_t) lower (every sized struct is 8-byte aligned, so no field
 * moves relative to the others), asserted below.
 */
#include "lib_i.h"

#include <errno.h>
#include <string.h>

/* The lib_abi_* functions are reached by their symbol versions only. */
#pragma GCC diagnostic ignored "-Wmissing-declarations"

/* Exports @impl as @name, "NAME@VERSION" (NAME@@VERSION: the default). */
#define SYMVER(impl, name) __asm__(".symver " #impl ", " name)

/* The largest struct_size taken as meant; above it, an unset field. */
#define SIZED_MAX 65536u

/* The bytes before the fields every version has: struct_size. */
#define HEAD sizeof(size_t)

/*
 * The sizes of the sized structs as of TESTFS_0.5, which struct_size 0
 * stands for. Fixed: when a struct grows, these stay.
 */
#define CONFIG_0_5 112u
#define SETTINGS_0_5 896u
#define USAGE_0_5 64u
#define HISTOGRAMS_0_5 408u
#define PAGE_AGE_0_5 264u
#define CACHESTAT_0_5 48u

/* The testfs_page_age of TESTFS_0.3 ended before reads_untraced. */
#define PAGE_AGE_0_3 (offsetof(struct testfs_page_age, reads_untraced) - HEAD)

_Static_assert(sizeof(struct testfs_config) >= CONFIG_0_5, "config");
_Static_assert(sizeof(struct testfs_settings) >= SETTINGS_0_5, "settings");
_Static_assert(sizeof(struct testfs_usage) >= USAGE_0_5, "usage");
_Static_assert(sizeof(struct testfs_histograms) >= HISTOGRAMS_0_5,
	       "histograms");
_Static_assert(sizeof(struct testfs_page_age) >= PAGE_AGE_0_5, "page age");
_Static_assert(sizeof(struct testfs_cachestat) >= CACHESTAT_0_5, "cachestat");
_Static_assert(_Alignof(struct testfs_config) == HEAD &&
		       _Alignof(struct testfs_settings) == HEAD &&
		       _Alignof(struct testfs_usage) == HEAD &&
		       _Alignof(struct testfs_histograms) == HEAD &&
		       _Alignof(struct testfs_page_age) == HEAD &&
		       _Alignof(struct testfs_cachestat) == HEAD,
	       "the old layouts are the new ones less struct_size");

/*
 * The bytes of a sized struct the caller declared @struct_size bytes long
 * that the library reads or fills: 0 for a size no header ever declared.
 */
static size_t sized(size_t struct_size, size_t base, size_t full)
{
	if (!struct_size)
		struct_size = base;
	if (struct_size < HEAD || struct_size > SIZED_MAX)
		return 0;
	return struct_size < full ? struct_size : full;
}

/*
 * Copies the first @n bytes of @full (a struct filled by the library)
 * after struct_size to @out (a caller's struct @n bytes long, with
 * struct_size first when @head), and sets its struct_size to @n.
 */
static void fill(void *out, const void *full, size_t n, bool head)
{
	size_t skip = head ? HEAD : 0;

	memcpy((char *)out + skip, (const char *)full + HEAD, n - HEAD);
	if (head)
		memcpy(out, &n, sizeof(n));
}

/*
 * The bytes of an output struct to fill, its @struct_size the caller's
 * (NULL: no struct, the call fails on its own); 0: a bad struct_size.
 * Zeroes @full, the library's struct, for the call.
 */
static size_t out_bytes(const size_t *struct_size, void *full, size_t size,
			size_t base)
{
	memset(full, 0, size);
	return struct_size ? sized(*struct_size, base, size) : size;
}

/* Hands the caller @n bytes of @full, if it gave a struct; then @err. */
static int give(void *out, const void *full, size_t n, int err)
{
	if (out)
		fill(out, full, n, true);
	return err;
}

/* Reads the caller's config @cfg (NULL: every default) into @full. */
static const struct testfs_config *config_in(const struct testfs_config *cfg,
					     struct testfs_config *full,
					     bool head)
{
	size_t n;

	if (!cfg)
		return NULL;
	memset(full, 0, sizeof(*full));
	if (head) {
		n = sized(cfg->struct_size, CONFIG_0_5, sizeof(*full));
		if (!n)
			return NULL;
		memcpy(full, cfg, n);
	} else {
		memcpy((char *)full + HEAD, cfg, sizeof(*full) - HEAD);
	}
	full->struct_size = sizeof(*full);
	return full;
}

/* ------------------------------------------------------------------ */
/* TESTFS_0.5: struct_size                                             */
/* ------------------------------------------------------------------ */

int lib_abi_start(const struct testfs_config *cfg, struct testfs_mount **out)
{
	struct testfs_config full;

	if (cfg && !config_in(cfg, &full, true))
		return lib_set_reason(-EINVAL,
				      "testfs_config.struct_size %zu is not "
				      "the size of a testfs_config",
				      cfg->struct_size);
	return lib_full_start(cfg ? &full : NULL, out);
}
SYMVER(lib_abi_start, "testfs_start@@TESTFS_0.5");

int lib_abi_find_daemon(const struct testfs_config *cfg, char *buf, size_t size)
{
	struct testfs_config full;

	if (cfg && !config_in(cfg, &full, true))
		return -EINVAL;
	return lib_full_find_daemon(cfg ? &full : NULL, buf, size);
}
SYMVER(lib_abi_find_daemon, "testfs_find_daemon@@TESTFS_0.5");

/*
 * The TESTFS_0.5 definition of testfs_@Name, which fills the sized struct
 * @Type at *out: @Params its parameters, @Call the full-size call on
 * @full_out (the library's struct, or NULL for a NULL @out).
 */
#define SIZED_OUTPUT(Name, Type, Base, Params, Call)                           \
	int lib_abi_##Name Params                                              \
	{                                                                      \
		struct Type full, *full_out = out ? &full : NULL;              \
		size_t n = out_bytes(out ? &out->struct_size : NULL, &full,    \
				     sizeof(full), Base);                      \
                                                                               \
		return n ? give(out, &full, n, Call) : -EINVAL;                \
	}                                                                      \
	SYMVER(lib_abi_##Name, "testfs_" #Name "@@TESTFS_0.5")

SIZED_OUTPUT(settings, testfs_settings, SETTINGS_0_5,
	     (const struct testfs_mount *fs, struct testfs_settings *out),
	     lib_full_settings(fs, full_out));
SIZED_OUTPUT(log_usage, testfs_usage, USAGE_0_5,
	     (const struct testfs_log *log, const char *name,
	      struct testfs_usage *out, struct testfs_extents *wasted),
	     lib_full_log_usage(log, name, full_out, wasted));
SIZED_OUTPUT(log_histograms, testfs_histograms, HISTOGRAMS_0_5,
	     (const struct testfs_log *log, const char *name,
	      struct testfs_histograms *out),
	     lib_full_log_histograms(log, name, full_out));
SIZED_OUTPUT(log_page_age, testfs_page_age, PAGE_AGE_0_5,
	     (const struct testfs_log *log, const char *name,
	      struct testfs_page_age *out),
	     lib_full_log_page_age(log, name, full_out));
SIZED_OUTPUT(cachestat, testfs_cachestat, CACHESTAT_0_5,
	     (struct testfs_mount * fs, const char *name, uint64_t first_page,
	      uint64_t npages, struct testfs_cachestat *out),
	     lib_full_cachestat(fs, name, first_page, npages, full_out));

/* ------------------------------------------------------------------ */
/* Before TESTFS_0.5: the layouts without struct_size                  */
/* ------------------------------------------------------------------ */

int lib_abi_start_0_1(const struct testfs_config *cfg,
		      struct testfs_mount **out)
{
	struct testfs_config full;

	return lib_full_start(config_in(cfg, &full, false), out);
}
SYMVER(lib_abi_start_0_1, "testfs_start@TESTFS_0.1");

int lib_abi_find_daemon_0_2(const struct testfs_config *cfg, char *buf,
			    size_t size)
{
	struct testfs_config full;

	return lib_full_find_daemon(config_in(cfg, &full, false), buf, size);
}
SYMVER(lib_abi_find_daemon_0_2, "testfs_find_daemon@TESTFS_0.2");

/* The old output structs: the call on @full, then its fields to @out. */
#define OLD_OUTPUT(out, full, size, call)                                      \
	do {                                                                   \
		int err_;                                                      \
                                                                               \
		memset(&(full), 0, sizeof(full));                              \
		err_ = (call);                                                 \
		if (out)                                                       \
			fill(out, &(full), (size) + HEAD, false);              \
		return err_;                                                   \
	} while (0)

int lib_abi_settings_0_2(const struct testfs_mount *fs, void *out)
{
	struct testfs_settings full;

	OLD_OUTPUT(out, full, sizeof(full) - HEAD,
		   lib_full_settings(fs, out ? &full : NULL));
}
SYMVER(lib_abi_settings_0_2, "testfs_settings@TESTFS_0.2");

int lib_abi_log_usage_0_1(const struct testfs_log *log, const char *name,
			  void *out, struct testfs_extents *wasted)
{
	struct testfs_usage full;

	OLD_OUTPUT(out, full, sizeof(full) - HEAD,
		   lib_full_log_usage(log, name, out ? &full : NULL, wasted));
}
SYMVER(lib_abi_log_usage_0_1, "testfs_log_usage@TESTFS_0.1");

int lib_abi_log_histograms_0_1(const struct testfs_log *log, const char *name,
			       void *out)
{
	struct testfs_histograms full;

	OLD_OUTPUT(out, full, sizeof(full) - HEAD,
		   lib_full_log_histograms(log, name, out ? &full : NULL));
}
SYMVER(lib_abi_log_histograms_0_1, "testfs_log_histograms@TESTFS_0.1");

/*
 * TESTFS_0.3 published testfs_page_age without reads_untraced; the field
 * came later inside the same version, which made the library write past
 * the struct of a program built before it. This version fills the 0.3
 * struct again; reads_untraced is TESTFS_0.5's.
 */
int lib_abi_log_page_age_0_3(const struct testfs_log *log, const char *name,
			     void *out)
{
	struct testfs_page_age full;

	OLD_OUTPUT(out, full, PAGE_AGE_0_3,
		   lib_full_log_page_age(log, name, out ? &full : NULL));
}
SYMVER(lib_abi_log_page_age_0_3, "testfs_log_page_age@TESTFS_0.3");

int lib_abi_cachestat_0_1(struct testfs_mount *fs, const char *name,
			  uint64_t first_page, uint64_t npages, void *out)
{
	struct testfs_cachestat full;

	OLD_OUTPUT(out, full, sizeof(full) - HEAD,
		   lib_full_cachestat(fs, name, first_page, npages,
				      out ? &full : NULL));
}
SYMVER(lib_abi_cachestat_0_1, "testfs_cachestat@TESTFS_0.1");
