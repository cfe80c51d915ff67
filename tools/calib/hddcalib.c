// SPDX-License-Identifier: GPL-2.0
/*
 * hddcalib: extract a disk's geometry from timed reads (paper 002 section
 * 3.2, after Worthington et al.). Runs in the VM lab's busybox guest as a
 * static binary (tools/calib/Makefile builds it on the host; vm-run.sh
 * copies tools/ into the guest as /rl/tools).
 *
 *   hddcalib [-m MEMBER] [-r REF] [-s N/M] DEVICE
 *
 * Prints one line for dm-raidlab's message
 *   geom <member> period_ns=..,cylinders=..,heads=..,spt=..,track_skew=..,
 *        cyl_skew=..,head_switch_ns=..,seek_a_ns=..,seek_b_ns=..,seek_c_ns=..,ref=..
 * on stdout, and the measurements on stderr. -s gives the time scale of an
 * emulated disk (dm-hddsim time_scale N/M) to turn wall into disk time.
 *
 * Method (single-sector O_DIRECT reads, queue depth 1, CLOCK_MONOTONIC
 * time stamps taken when pread returns):
 *  - period: reading the same sector again and again completes once per
 *    turn; the mean interval over 64 reads;
 *  - phase(x): read REF then x; the completion difference modulo the period
 *    is the angle from the end of REF to the end of x;
 *  - sectors per track: phase(REF + k) = k * period / spt while REF + k is
 *    on REF's track (REF must be a track's first sector; 0 is);
 *  - skews: the slot of each track's first sector, track after track: the
 *    increment is track_skew inside a cylinder and cyl_skew across one,
 *    which gives heads (when the two skews differ);
 *  - switch and seek times: cost(x) = overhead + positioning time, found by
 *    delaying the read of x after REF's completion by w and searching
 *    (bisection, majority of 3) the w at which x misses its turn:
 *    cost = (completion difference - one sector) - w. The host overhead
 *    is cost on REF's own track; head switch = cost(next track) - overhead;
 *    seek(d) = cost(cylinder d) - overhead, fitted to a + b*d + c*sqrt(d)
 *    by least squares;
 *  - cylinders: the device size / (heads * spt).
 * Limits: one zone (the zone of REF); the timer jitter of the host must be
 * well under a sector time (use a slower time scale for fast disks).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static int fd;
static void *buf;
static double period;		/* wall ns */
static double slot;		/* wall ns per sector */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double rd(uint64_t lba)
{
	if (pread(fd, buf, 512, lba * 512) != 512) {
		perror("pread");
		exit(1);
	}
	return now();
}

/* read ref, wait w ns after its completion, read x: completion difference */
static double pair(uint64_t ref, uint64_t x, double w)
{
	double t0 = rd(ref);

	while (now() < t0 + w)
		;
	return rd(x) - t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return v[n / 2];
}

/*
 * angle (ns) from the end of ref to the end of x: the circular median of 5,
 * in [-slot/2, period - slot/2)
 */
static double phase(uint64_t ref, uint64_t x)
{
	double v[5], m;
	int i;

	for (i = 0; i < 5; i++) {
		v[i] = fmod(pair(ref, x, 0), period);
		/* unwrap around the first value */
		if (v[i] - v[0] > period / 2)
			v[i] -= period;
		else if (v[0] - v[i] > period / 2)
			v[i] += period;
	}
	m = fmod(median(v, 5) + period, period);
	return m > period - slot / 2 ? m - period : m;
}

/*
 * Back-to-back reads of one sector complete once a turn: the median
 * interval, then the mean of the intervals within 10 % of it (a late
 * completion makes one interval long and the next short).
 */
static double measure_period(uint64_t ref)
{
	double t[33], iv[32], p0, sum = 0;
	int i, n = 0;

	for (i = 0; i < 33; i++)
		t[i] = rd(ref);
	for (i = 0; i < 32; i++)
		iv[i] = t[i + 1] - t[i];
	memcpy(t, iv, sizeof(iv));
	p0 = median(t, 32);
	for (i = 0; i < 32; i++) {
		if (fabs(iv[i] - p0) < p0 / 10) {
			sum += iv[i];
			n++;
		}
	}
	return sum / n;
}

/* overhead + positioning before x can be read, after ref's completion */
static double cost(uint64_t ref, uint64_t x)
{
	double d0 = pair(ref, x, 0), lo = 0, hi = period, dlo = d0;

	while (hi - lo > period / 128) {
		double mid = (lo + hi) / 2, v[3];
		int i, ok = 0;

		for (i = 0; i < 3; i++) {
			v[i] = pair(ref, x, mid);
			ok += v[i] < d0 + period / 2;
		}
		if (ok >= 2) {
			lo = mid;
			dlo = median(v, 3);
			if (dlo > d0 + period / 2)
				dlo = d0;
		} else {
			hi = mid;
		}
	}
	return dlo - slot - lo;
}

/* least squares a + b*d + c*sqrt(d) */
static void fit(const double *d, const double *s, int n, double *a, double *b,
		double *c)
{
	double m[3][4] = { { 0 } }, det;
	int i, j, k;

	for (i = 0; i < n; i++) {
		double f[3] = { 1, d[i], sqrt(d[i]) };

		for (j = 0; j < 3; j++) {
			for (k = 0; k < 3; k++)
				m[j][k] += f[j] * f[k];
			m[j][3] += f[j] * s[i];
		}
	}
	/* Gauss-Jordan */
	for (i = 0; i < 3; i++) {
		det = m[i][i];
		for (k = 0; k < 4; k++)
			m[i][k] /= det;
		for (j = 0; j < 3; j++) {
			double f = m[j][i];

			if (j == i)
				continue;
			for (k = 0; k < 4; k++)
				m[j][k] -= f * m[i][k];
		}
	}
	*a = m[0][3];
	*b = m[1][3];
	*c = m[2][3];
}

int main(int argc, char **argv)
{
	unsigned int num = 1, den = 1, member = 0;
	uint64_t ref = 0, bytes, k, spt, heads = 0, cyls, t, x;
	int opt, sk_prev, sk, inc, track_skew = -1, cyl_skew = -1;
	double scale, p, ovh, hs, a, b, c;
	double dist[24], seek[24];
	int nd = 0;

	while ((opt = getopt(argc, argv, "m:r:s:")) != -1) {
		switch (opt) {
		case 'm':
			member = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			ref = strtoull(optarg, NULL, 0);
			break;
		case 's':
			if (sscanf(optarg, "%u/%u", &num, &den) < 1 || !num || !den) {
				fprintf(stderr, "bad -s %s\n", optarg);
				return 2;
			}
			break;
		default:
			goto usage;
		}
	}
	if (optind + 1 != argc) {
usage:
		fprintf(stderr, "usage: hddcalib [-m member] [-r ref_lba] [-s N/M] device\n");
		return 2;
	}
	scale = (double)num / den;	/* disk ns = wall ns * scale */
	fd = open(argv[optind], O_RDONLY | O_DIRECT);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes)) {
		perror(argv[optind]);
		return 1;
	}
	if (posix_memalign(&buf, 4096, 4096))
		return 1;

	period = measure_period(ref);
	fprintf(stderr, "period %.0f ns (wall)\n", period);

	/* sectors per track: phase(ref + k) = k * slot on ref's track */
	slot = 0;	/* for phase()'s wrap test: refined below */
	slot = phase(ref, ref + 1);
	for (k = 2; k * slot < 0.9 * period; k *= 2) {
		p = phase(ref, ref + k);
		if (fabs(p - k * slot) > slot / 3)
			break;
		slot = p / k;
	}
	spt = (uint64_t)lround(period / slot);
	slot = period / spt;
	fprintf(stderr, "sectors per track %llu (slot %.0f ns, checked to k=%llu)\n",
		(unsigned long long)spt, slot, (unsigned long long)k / 2);

	/* skews, track after track, and heads where the increment changes */
	sk_prev = 0;
	for (t = 1; t <= 256; t++) {
		p = phase(ref, ref + t * spt);
		sk = (int)(lround(p / slot) % (long)spt + spt) % spt;
		inc = (sk - sk_prev + (int)spt) % (int)spt;
		if (track_skew < 0) {
			track_skew = inc;
		} else if (inc != track_skew) {
			heads = t;
			cyl_skew = inc;
			break;
		}
		sk_prev = sk;
	}
	if (!heads) {
		/* skews all equal (or one head): the first increment serves both */
		fprintf(stderr, "no cylinder boundary in the skews: heads unknown, assumed 1\n");
		heads = 1;
		cyl_skew = track_skew;
	}
	fprintf(stderr, "track skew %d, cylinder skew %d, heads %llu\n",
		track_skew, cyl_skew, (unsigned long long)heads);
	cyls = bytes / 512 / (heads * spt);

	/* overhead on ref's own track, head switch on the next track */
	ovh = cost(ref, ref + spt / 2);
	hs = heads > 1 ? cost(ref, ref + spt + spt / 2) - ovh : 0;
	fprintf(stderr, "overhead %.0f ns, head switch %.0f ns (wall)\n", ovh, hs);

	/* seek profile over cylinder distances 1, 3, 10, 30, ... and full */
	for (k = 1; k < cyls && nd < 24; k = k * 10 / 3 > k ? k * 10 / 3 : k + 1) {
		if (k * 10 / 3 >= cyls)
			k = cyls - 1;
		x = ref + k * heads * spt + spt / 2;
		dist[nd] = k;
		seek[nd] = cost(ref, x) - ovh;
		fprintf(stderr, "seek %llu: %.0f ns (wall)\n", (unsigned long long)k, seek[nd]);
		nd++;
	}
	fit(dist, seek, nd, &a, &b, &c);
	/* the message takes no negative time: clamp noise-made ones */
	a = a < 0 ? 0 : a;
	b = b < 0 ? 0 : b;
	c = c < 0 ? 0 : c;
	hs = hs < 0 ? 0 : hs;

	printf("geom %u period_ns=%.0f,cylinders=%llu,heads=%llu,spt=%llu,track_skew=%d,cyl_skew=%d,"
	       "head_switch_ns=%.0f,seek_a_ns=%.0f,seek_b_ns=%.0f,seek_c_ns=%.0f,ref=%llu\n",
	       member, period * scale, (unsigned long long)cyls,
	       (unsigned long long)heads, (unsigned long long)spt, track_skew,
	       cyl_skew, hs * scale, a * scale, b * scale, c * scale,
	       (unsigned long long)ref);
	return 0;
}
