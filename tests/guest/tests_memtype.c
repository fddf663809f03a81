// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-tests: the in-kernel API's memory types and window reuse: WC mappings,
 * conflicting memtypes, sleepable windows never stale, /proc/kcore.
 * A feature program of pvmap-tests (feature_list.h).
 */
#include "pvmap-tests.h"

/*
 * pvmap_test's probe of @va on @cpu (an IPI: that CPU keeps the address
 * space it has loaded): 0 faults, 1 reads (in *@val), -1 failed.
 */
static int probe_on(int cpu, unsigned long va, uint32_t *val)
{
	struct pvmap_test_probe req = { .va = va, .cpu = cpu };

	if (kernel_request("probe", PVMAP_TEST_PROBE, &req))
		return -1;
	*val = req.val;
	return !req.faulted;
}

/* Probe @va on every CPU up to @ncpu: all must read @want (or all fault if !@want). */
static int probe_all(int ncpu, unsigned long va, uint32_t want, const char *who)
{
	int bad = 0;

	for (int cpu = 0; cpu < ncpu; cpu++) {
		uint32_t val = 0;
		int r = probe_on(cpu, va, &val);

		if (r < 0 || (want && (r != 1 || val != want)) || (!want && r != 0))
			bad += fail("%s, CPU %d: the window %s, want %s %#x", who, cpu,
				    r < 0 ? "could not be probed" : r ? "reads" : "faults",
				    want ? "to read" : "to fault, not read", r == 1 ? val : want) != 0;
	}
	return bad;
}

/*
 * pvmap_test's release of its held sleepable map, which probes every CPU at
 * once after the unmap; 1 (after a diagnostic) when one still reads.
 */
static int release_held(const char *who)
{
	struct pvmap_test_pool req;

	if (kernel_request("pool_release", PVMAP_TEST_POOL_RELEASE, &req))
		return 1;
	if (!req.stale)
		return 0;
	printf("# %s's release: %u CPUs still read the window\n", who, req.stale);
	return 1;
}

/* pvmap_test's hold of one sleepable map of page @off: its address, or 0. */
static unsigned long hold_page(uint64_t off, uint32_t *val)
{
	struct pvmap_test_pool req = { .offset = off };

	if (kernel_request("pool_hold", PVMAP_TEST_POOL_HOLD, &req))
		return 0;
	*val = req.val;
	return req.va;
}

/* The first u32 of the aperture page at @off: @tag (PWRITE), so probes can tell pages apart. */
static int put_tag(int fd, uint64_t off, uint32_t tag)
{
	uint64_t done;

	return guest_rw(fd, true, off, &tag, sizeof(tag), &done) || done != sizeof(tag) ? -1 : 0;
}

/* The PT_LOAD segments of /proc/kcore: the kernel's ELF class is this program's. */
#if defined(__x86_64__)
typedef Elf64_Ehdr kcore_ehdr;
typedef Elf64_Phdr kcore_phdr;
#else
typedef Elf32_Ehdr kcore_ehdr;
typedef Elf32_Phdr kcore_phdr;
#endif

struct kcore {
	int fd;
	int n;
	struct {
		uint64_t vaddr, size, offset;
	} seg[64];
};

static int kcore_open(struct kcore *k)
{
	kcore_ehdr e;
	kcore_phdr p;

	k->n = 0;
	k->fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (k->fd < 0 || pread(k->fd, &e, sizeof(e), 0) != sizeof(e))
		return -1;
	for (unsigned int i = 0; i < e.e_phnum && k->n < 64; i++) {
		if (pread(k->fd, &p, sizeof(p), e.e_phoff + i * e.e_phentsize) != sizeof(p))
			return -1;
		if (p.p_type == PT_LOAD)
			k->seg[k->n++] = (typeof(k->seg[0])){ p.p_vaddr, p.p_memsz, p.p_offset };
	}
	return k->n ? 0 : -1;
}

/* Read the page at kernel address @va through kcore; 0, or -1 if kcore has no such page. */
static int kcore_read(const struct kcore *k, uint64_t va, uint8_t *buf)
{
	for (int i = 0; i < k->n; i++)
		if (va - k->seg[i].vaddr < k->seg[i].size)
			return pread(k->fd, buf, PAGE, k->seg[i].offset + (va - k->seg[i].vaddr)) ==
			       (ssize_t)PAGE ? 0 : -1;
	return -1;
}

/*
 * pvmap's PTEs carry the write-combining PAT encoding: an atomic slot and
 * a held sleepable map read back in the guest, the held map's flags in the
 * host's audit (handshake "memtype"), and the kernel's PAT memtype list.
 * Without PAT (a CPU without MTRRs, say) the kernel grants UC-: a failure.
 */
TEST_F(pvmap, memtype_wc)
{
	char list[16384], want[96], *line;
	struct pvmap_test_facilities fac;
	struct pvmap_test_memtype held = { 0 };
	struct device *d;
	int status;
	pid_t child;

	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	ASSERT_NE(NULL, d) TH_LOG("no ivshmem aperture");
	ASSERT_EQ(0, kernel_request("facilities", PVMAP_TEST_FACILITIES, &fac));
	fflush(stdout);
	child = fork();
	ASSERT_GE(child, 0) TH_LOG("fork: %s", strerror(errno));
	if (child == 0) {	/* holds the map until memtype_release */
		struct pvmap_test_memtype req;

		if (guest_test(PVMAP_TEST_MEMTYPE_HOLD, &req, d->info.aperture_base,
			       d->info.aperture_size))
			_exit(2);
		printf("# memtype_hold: slot=%s held=%s pat=%s: %s\n",
		       guest_memtype_name(req.slot), guest_memtype_name(req.held),
		       req.pat ? "on" : "off", req.h.msg);
		_exit(req.h.status != PVMAP_TEST_PASS);
	}
	/* no ASSERT_ until the release: the child's held map outlives this process */
	for (int i = 0; i < 300 && !held.va; i++) {
		if (guest_test(PVMAP_TEST_MEMTYPE_QUERY, &held, d->info.aperture_base,
			       d->info.aperture_size))
			held.va = 0;
		if (!held.va)
			usleep(100 * 1000);
	}
	EXPECT_NE(0, held.va) TH_LOG("the held map never showed up");
	if (held.va) {
		guest_print_live();
		printf("# pvmap-host: memtype va=%#llx pa=%#llx mode=%s level=%s\n",
		       (unsigned long long)held.va, (unsigned long long)held.pa,
		       guest_memtype_name(held.held), held.large ? "large" : "4k");
		EXPECT_TRUE(guest_host_sync("memtype"))
			TH_LOG("the host's audit does not show WC flags for the held map");
	}
	guest_test(PVMAP_TEST_MEMTYPE_RELEASE, &held, d->info.aperture_base,
		   d->info.aperture_size);
	EXPECT_TRUE(waitpid(child, &status, 0) >= 0 && WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the PTEs of pvmap's maps are not write-combining");

	snprintf(want, sizeof(want), "PAT: [mem 0x%016llx-0x%016llx] ",
		 (unsigned long long)d->info.aperture_base,
		 (unsigned long long)(d->info.aperture_base + d->info.aperture_size));
	ASSERT_GE(guest_read_file("/sys/kernel/debug/x86/pat_memtype_list", list, sizeof(list)), 0)
		TH_LOG("no /sys/kernel/debug/x86/pat_memtype_list: PAT is off");
#if defined(__i386__)
	/* The list walks the memtype tree from 0 to ULONG_MAX (memtype_interval.c). */
	if (d->info.aperture_base > 0xffffffffULL) {
		printf("# aperture above 4 GiB: a 32-bit kernel's PAT memtype list omits it\n");
		return;
	}
#endif
	line = strstr(list, want);
	if (!line) {
		printf("# want \"%s\" in:\n", want);
		for (char *l = strtok(list, "\n"); l; l = strtok(NULL, "\n"))
			printf("# %s\n", l);
	}
	ASSERT_NE(NULL, line) TH_LOG("the aperture is not in the PAT memtype list");
	printf("# %.*s\n", (int)strcspn(line, "\n"), line);
	EXPECT_EQ(0, strncmp(line + strlen(want), "write-combining\n", 16))
		TH_LOG("the aperture is reserved as %.*s", (int)strcspn(line + strlen(want), "\n"),
		       line + strlen(want));
}

/*
 * pvmap's maps with part of the aperture already reserved uncached, as
 * another driver's ioremap() of a register page does (pvmap_test makes
 * it while pvmap is unbound from the device): the kernel grants UC- to the
 * whole aperture, and every PTE pvmap writes must carry UC-, never WC over
 * it; create_wc may refuse instead. Then /dev/pvmapN, bound over such a
 * reservation, says it is not write-combining and still works; once the
 * reservation is gone it binds write-combining again.
 */
TEST_F(pvmap, memtype_conflict)
{
	struct pvmap_test_conflict conflict = { 0 };
	struct pvmap_test_uc uc;
	unsigned long long base, size;
	char pci[16];
	struct device *d;
	uint8_t buf[64];
	int ret = 0, fd;

	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	ASSERT_NE(NULL, d) TH_LOG("no ivshmem aperture");
	snprintf(pci, sizeof(pci), "%s", d->info.pci_name);
	base = d->info.aperture_base;
	size = d->info.aperture_size;
	ASSERT_EQ(0, guest_write_file(PVMAP_DRIVER "/unbind", pci)) TH_LOG("unbind %s", pci);
	/* unbound: no ASSERT_ until pvmap is bound again, failures go to ret */
	if (guest_test(PVMAP_TEST_MEMTYPE_CONFLICT, &conflict, base, size))
		ret = fail("memtype_conflict: %s", conflict.h.msg);
	printf("# memtype_conflict: %s granted=%s slot=%s pool=%s large=%s is_wc=%u refused=%d: "
	       "%s\n", conflict.h.status == PVMAP_TEST_PASS ? "ok" :
	       conflict.h.status == PVMAP_TEST_SKIP ? "skip" : "fail",
	       guest_memtype_name(conflict.granted), guest_memtype_name(conflict.slot),
	       guest_memtype_name(conflict.pool), guest_memtype_name(conflict.large),
	       conflict.is_wc, conflict.refused, conflict.h.msg);
	if (!ret && conflict.h.status == PVMAP_TEST_PASS && !conflict.refused) {
		/* /dev/pvmapN over the same reservation: INFO says so, I/O works */
		if (guest_test(PVMAP_TEST_UC_HOLD, &uc, base, size) ||
		    uc.h.status != PVMAP_TEST_PASS)
			ret = fail("uc_hold: %s", uc.h.msg);
		if (!ret && guest_write_file(PVMAP_DRIVER "/bind", pci))
			ret = fail("bind over the UC- reservation");
		fd = ret ? -1 : open_ivshmem(&d);
		if (fd >= 0) {
			if (d->info.flags & PVMAP_INFO_F_WRITE_COMBINING)
				ret = fail("INFO says write-combining over a UC- reservation");
			else if (pwrite_pattern(fd, 6 * MIB, sizeof(buf), 31, false) ||
				 guest_rw(fd, false, 6 * MIB, buf, sizeof(buf), NULL) ||
				 pvmap_pattern_check(buf, sizeof(buf), 31, 6 * MIB) != sizeof(buf))
				ret = fail("PWRITE/PREAD over the UC- reservation");
			close(fd);
			guest_write_file(PVMAP_DRIVER "/unbind", pci);
		} else if (!ret) {
			ret = -1;
		}
		guest_test(PVMAP_TEST_UC_RELEASE, &uc, base, size);
	}
	ASSERT_EQ(0, guest_write_file(PVMAP_DRIVER "/bind", pci)) TH_LOG("bind %s again", pci);
	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	ASSERT_NE(NULL, d) TH_LOG("%s not bound again", pci);
	ASSERT_NE(0, d->info.flags & PVMAP_INFO_F_WRITE_COMBINING)
		TH_LOG("not write-combining once the UC- reservation is gone");
	ASSERT_EQ(0, ret);
	if (conflict.h.status == PVMAP_TEST_SKIP)
		SKIP(return, "%s", conflict.h.msg);
	ASSERT_EQ(PVMAP_TEST_PASS, conflict.h.status);
}

/*
 * One pool window used by two processes in turn, with different pages:
 * A, on CPU 0, maps page X through it, has it read on every CPU, and
 * releases it; B, on CPU 1, gets the same window for page Y. While B holds
 * it, every CPU must read Y, whichever process asks, and once B releases
 * it, fault: X's translation is never reachable again. Each CPU reads in
 * an IPI, in the address space it has loaded, so a TLB entry left on a CPU
 * other than the one that unmapped is found; the release itself probes
 * every CPU the moment the unmap returns, before anything else there can
 * flush that CPU's TLB by chance. (QEMU's TCG empties its whole
 * TLB on every CR3 write and has no PCIDs, so an entry left in another
 * address space's PCID cannot show here.)
 */
TEST_F(pvmap, sleepable_reuse_no_stale)
{
	const uint64_t x_off = 3 * MIB, y_off = 5 * MIB;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), fd, bad = 0, go[2], back[2], status;
	uint32_t tag_x = 0x5a000000 | (random_u64() & 0xffff), tag_y = tag_x ^ 0x00ff0000;
	unsigned long va_x = 0, va_y = 0;
	struct device *d;
	uint32_t val = 0;
	struct pvmap_test_facilities fac;
	pid_t pid;
	char c;

	ASSERT_EQ(0, kernel_request("facilities", PVMAP_TEST_FACILITIES, &fac));
	if (!(fac.flags & PVMAP_TEST_F_PTE_LAYER))	/* pvmap_test_probe() */
		SKIP(return,
		     "pvmap built without its test hooks: pvmap_test cannot tell its windows");
	fd = open_ivshmem(&d);
	ASSERT_GE(fd, 0);
	if (!(d->info.flags & PVMAP_INFO_F_CLEARS_ON_UNMAP))
		SKIP(return,
		     "whole-aperture mapping: sleepable maps point into it, no window is reused");
	ASSERT_GE(ncpu, 2) TH_LOG("set-up: %d CPUs, tags or pipes failed", ncpu);
	ASSERT_EQ(0, put_tag(fd, x_off, tag_x))
		TH_LOG("set-up: %d CPUs, tags or pipes failed", ncpu);
	ASSERT_EQ(0, put_tag(fd, y_off, tag_y))
		TH_LOG("set-up: %d CPUs, tags or pipes failed", ncpu);
	ASSERT_EQ(0, pipe(go)) TH_LOG("set-up: %d CPUs, tags or pipes failed", ncpu);
	ASSERT_EQ(0, pipe(back)) TH_LOG("set-up: %d CPUs, tags or pipes failed", ncpu);
	close(fd);

	/* A: map X on CPU 0, read it on every CPU, release it from CPU 0 */
	ASSERT_EQ(0, pin_cpu(0)) TH_LOG("A's map of page X: val=%x, want %x", val, tag_x);
	va_x = hold_page(x_off, &val);
	ASSERT_NE(0, va_x) TH_LOG("A's map of page X: val=%x, want %x", val, tag_x);
	ASSERT_EQ(tag_x, val) TH_LOG("A's map of page X: val=%x, want %x", val, tag_x);
	bad += probe_all(ncpu, va_x, tag_x, "A holding X");
	bad += release_held("A");
	bad += probe_all(ncpu, va_x, 0, "A after releasing X");

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* B: the same window for page Y, from the other CPU */
		int b = 0;

		if (pin_cpu(1) || !(va_y = hold_page(y_off, &val))) {
			printf("# B's map of page Y failed\n");
			_exit(1);
		}
		if (va_y != va_x)
			b += fail("B got window %#lx, not A's %#lx: nothing reused", va_y, va_x) != 0;
		b += probe_all(ncpu, va_y, tag_y, "B holding Y");
		c = 'h';
		if (write(back[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			b++;
		b += release_held("B");
		b += probe_all(ncpu, va_y, 0, "B after releasing Y");
		_exit(b ? 1 : 0);
	}
	if (pid < 0 || read(back[0], &c, 1) != 1) {
		bad++;
	} else {
		bad += probe_all(ncpu, va_x, tag_y, "A while B holds Y");
		c = 'r';
		bad += write(go[1], &c, 1) != 1;
	}
	if (pid > 0 && (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
			WEXITSTATUS(status)))
		bad += fail("B failed (status %#x)", status) != 0;
	bad += probe_all(ncpu, va_x, 0, "A after B released Y");
	unpin();
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
	if (!bad)
		printf("# window %#lx: X (%#x) for A, then Y (%#x) for B; probed on %d CPUs "
		       "from both: never X after its release\n", va_x, tag_x, tag_y, ncpu);
	EXPECT_EQ(0, bad);
}

#define KCORE_BYTE	0x5a

/*
 * /proc/kcore read across all of pvmap's windows while maps are live in
 * them (a writer's atomic slots on the other vCPU, a held sleepable map):
 * each page must read as zeros or as the aperture's bytes, and the kernel
 * must survive it (the console check catches an oops).
 */
TEST_F(pvmap, kcore_read_windows)
{
	static uint8_t fill[MIB], page[PAGE];
	unsigned long long va, npages, pages = 0, nonzero = 0, bad = 0;
	char windows[4096], kind[32], *line, *save;
	const uint64_t held_off = 7 * MIB, writer_off = 8 * MIB;
	struct pvmap_test_pool pool;
	uint32_t held_val;
	int fd, nwin = 0, rounds = 0;
	struct kcore k;
	struct device *d;
	time_t until;
	pid_t writer;

	fd = open_ivshmem(&d);
	ASSERT_GE(fd, 0);
	memset(fill, KCORE_BYTE, sizeof(fill));
	ASSERT_EQ(0, guest_rw(fd, true, held_off, fill, PAGE, NULL))
		TH_LOG("cannot fill the held page");
	ASSERT_GT(guest_read_file(GUEST_DEBUGFS "/windows", windows, sizeof(windows)), 0)
		TH_LOG("no " GUEST_DEBUGFS "/windows");
	ASSERT_EQ(0, kcore_open(&k)) TH_LOG("/proc/kcore: %s", strerror(errno));
	/* no ASSERT_ until the release: the held map outlives this process */
	if (!hold_page(held_off, &held_val))
		bad++;
	fflush(stdout);
	writer = fork();
	if (writer == 0) {
		pin_cpu(1);
		for (;;)
			guest_rw(fd, true, writer_off, fill, sizeof(fill), NULL);
	}
	pin_cpu(0);
	until = time(NULL) + 2;
	do {
		char copy[4096];

		snprintf(copy, sizeof(copy), "%s", windows);
		nwin = 0;
		for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			if (sscanf(line, "%llx %llu %31s", &va, &npages, kind) != 3)
				continue;
			nwin++;
			for (unsigned long long i = 0; i < npages; i++) {
				bool zero = true, ours = true;

				if (kcore_read(&k, va + i * PAGE, page)) {
					if (!bad++)
						printf("# kcore cannot read %s page %llu at %#llx: %s\n",
						       kind, i, va + i * PAGE, strerror(errno));
					continue;
				}
				for (size_t b = 0; b < PAGE; b++) {
					zero &= !page[b];
					ours &= page[b] == KCORE_BYTE || !page[b];
				}
				pages++;
				nonzero += !zero;
				if (!ours && !bad++)
					printf("# %s page %llu at %#llx reads bytes that are neither zero "
					       "nor the aperture's\n", kind, i, va + i * PAGE);
			}
		}
		rounds++;
	} while (time(NULL) < until);
	kill(writer, SIGKILL);
	waitpid(writer, NULL, 0);
	/* a whole-aperture mapping stays readable by design */
	if (d->info.flags & PVMAP_INFO_F_CLEARS_ON_UNMAP)
		bad += release_held("kcore_read_windows");
	else
		bad += !!kernel_request("pool_release", PVMAP_TEST_POOL_RELEASE, &pool);
	unpin();
	close(k.fd);
	close(fd);
	printf("# /proc/kcore over %d windows, %d rounds: %llu pages read, %llu all zeros, "
	       "%llu with the aperture's bytes\n", nwin, rounds, pages, pages - nonzero, nonzero);
	EXPECT_EQ(0, bad);
	EXPECT_NE(0, pages);
}

TEST_HARNESS_MAIN
