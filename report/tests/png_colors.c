// SPDX-License-Identifier: MIT
/*
 * Says whether a screenshot shows a picture: decodes an 8-bit RGB or
 * RGBA, non-interlaced PNG (what Chromium writes) with zlib and prints
 * "WIDTHxHEIGHT COLOURS distinct colours, P% not white". A blank page
 * has one or two colours; the report page has dozens (causes, text
 * anti-aliasing). Exit 0 when there are at least MIN colours and at least
 * PCT percent of the pixels are not white; 1 otherwise; 2 when the file
 * is not such a PNG. Usage: png_colors FILE MIN PCT
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undoes the per-row filters in place; returns 0 or -1. */
static int unfilter(unsigned char *raw, uint32_t w, uint32_t h, int bpp,
		    unsigned char *out)
{
	size_t stride = (size_t)w * bpp, y, x;

	for (y = 0; y < h; y++) {
		unsigned char ft = raw[y * (stride + 1)];
		unsigned char *src = raw + y * (stride + 1) + 1;
		unsigned char *row = out + y * stride;
		unsigned char *up = y ? out + (y - 1) * stride : NULL;

		for (x = 0; x < stride; x++) {
			int a = x >= (size_t)bpp ? row[x - bpp] : 0;
			int b = up ? up[x] : 0;
			int c = up && x >= (size_t)bpp ? up[x - bpp] : 0;
			int v = src[x];

			switch (ft) {
			case 0:
				break;
			case 1:
				v += a;
				break;
			case 2:
				v += b;
				break;
			case 3:
				v += (a + b) / 2;
				break;
			case 4:
				v += paeth(a, b, c);
				break;
			default:
				return -1;
			}
			row[x] = (unsigned char)v;
		}
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int bad(const char *path, const char *why)
{
	fprintf(stderr, "png_colors: %s: %s\n", path, why);
	return 2;
}

int main(int argc, char **argv)
{
	unsigned char sig[8], hdr[8], *data = NULL, *raw, *px;
	uint32_t w = 0, h = 0, len, *colors;
	size_t n = 0, cap = 0, i, distinct = 0, white = 0, total;
	uLongf rawlen;
	double pct;
	int bpp = 0;
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: png_colors FILE MIN PCT\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f)
		return bad(argv[1], "cannot open");
	if (fread(sig, 1, 8, f) != 8 || memcmp(sig, "\x89PNG\r\n\x1a\n", 8))
		return bad(argv[1], "not a PNG");
	while (fread(hdr, 1, 8, f) == 8) {
		unsigned char *chunk;

		memcpy(&len, hdr, 4);
		len = ntohl(len);
		if (len > (1u << 30))
			return bad(argv[1], "chunk too large");
		chunk = malloc(len + 4 + 1);
		if (!chunk || fread(chunk, 1, len + 4, f) != len + 4)
			return bad(argv[1], "truncated");
		if (memcmp(hdr + 4, "IHDR", 4) == 0 && len >= 13) {
			memcpy(&w, chunk, 4);
			memcpy(&h, chunk + 4, 4);
			w = ntohl(w);
			h = ntohl(h);
			if (chunk[8] != 8 || chunk[12] != 0 ||
			    (chunk[9] != 2 && chunk[9] != 6))
				return bad(argv[1], "not 8-bit RGB(A), "
						    "non-interlaced");
			bpp = chunk[9] == 6 ? 4 : 3;
		} else if (memcmp(hdr + 4, "IDAT", 4) == 0) {
			if (n + len > cap) {
				cap = (n + len) * 2;
				data = realloc(data, cap);
				if (!data)
					return bad(argv[1], "out of memory");
			}
			memcpy(data + n, chunk, len);
			n += len;
		}
		free(chunk);
		if (memcmp(hdr + 4, "IEND", 4) == 0)
			break;
	}
	fclose(f);
	if (!bpp || !w || !h || !n || w > 20000 || h > 20000)
		return bad(argv[1], "no image data");
	rawlen = (uLongf)h * ((uLongf)w * bpp + 1);
	raw = malloc(rawlen);
	px = malloc((size_t)w * h * bpp);
	colors = malloc((size_t)w * h * sizeof(*colors));
	if (!raw || !px || !colors)
		return bad(argv[1], "out of memory");
	if (uncompress(raw, &rawlen, data, n) != Z_OK ||
	    rawlen != (uLongf)h * ((uLongf)w * bpp + 1))
		return bad(argv[1], "bad image data");
	if (unfilter(raw, w, h, bpp, px))
		return bad(argv[1], "bad row filter");
	total = (size_t)w * h;
	for (i = 0; i < total; i++) {
		const unsigned char *p = px + i * bpp;

		colors[i] = (uint32_t)p[0] << 16 | p[1] << 8 | p[2];
		if (colors[i] == 0xffffff)
			white++;
	}
	qsort(colors, total, sizeof(*colors), cmp_u32);
	for (i = 0; i < total; i++)
		if (i == 0 || colors[i] != colors[i - 1])
			distinct++;
	pct = 100.0 * (double)(total - white) / (double)total;
	printf("%ux%u %zu distinct colours, %.1f%% not white\n", w, h, distinct,
	       pct);
	free(data);
	free(raw);
	free(px);
	free(colors);
	if (distinct < strtoul(argv[2], NULL, 10) ||
	    pct < strtod(argv[3], NULL))
		return 1;
	return 0;
}
