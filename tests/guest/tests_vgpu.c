// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-tests: virtio-gpu's host-visible window (run-guest --vgpu HOSTMEM,
 * trixie's QEMU with virglrenderer): host memory the guest reaches only
 * where the host maps a blob into the window. A guest program creates a
 * HOST3D blob, maps it and writes it; the host reads the bytes through the
 * window (tests/host_halves/vgpu.py).
 * A feature program of pvmap-tests (feature_list.h).
 */
#include "pvmap-tests.h"

/* the kernel source's uapi header: headers_install would strip __user */
#define __user
#include <virtgpu_drm.h>

#define VGPU_MODULES	"/lib/modules/vgpu"
#define VGPU_RENDER	"/dev/dri/renderD128"
#define VGPU_BLOB_SIZE	(1ULL << 20)
#define CAPSET_VIRGL2	2

/*
 * virglrenderer's protocol (virgl_protocol.h): a PIPE_RESOURCE_CREATE, and
 * the host GPU's RESOURCE_COPY_REGION (a box of one resource into another)
 */
#define VIRGL_CCMD_PIPE_RESOURCE_CREATE	48
#define VIRGL_PIPE_RES_CREATE_SIZE	11
#define VIRGL_CCMD_RESOURCE_COPY_REGION	17
#define VIRGL_CMD_RESOURCE_COPY_REGION_SIZE	13
#define VIRGL_CMD0(cmd, obj, len)	((cmd) | ((obj) << 8) | ((len) << 16))
#define VIRGL_FORMAT_R8_UNORM		64
#define VIRGL_BIND_VERTEX_BUFFER	(1 << 4)
#define VIRGL_RESOURCE_FLAG_MAP_PERSISTENT	(1 << 1)
#define VIRGL_RESOURCE_FLAG_MAP_COHERENT	(1 << 2)

/* Whether this guest has a virtio-gpu PCI device (1af4:1050). */
static bool vgpu_present(void)
{
	char path[300], text[16];
	struct dirent *e;
	bool found = false;
	DIR *dir;

	dir = opendir("/sys/bus/pci/devices");
	if (!dir)
		return false;
	while (!found && (e = readdir(dir))) {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", e->d_name);
		if (guest_read_file(path, text, sizeof(text)) <= 0 || strncmp(text, "0x1050", 6))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", e->d_name);
		found = guest_read_file(path, text, sizeof(text)) > 0 && !strncmp(text, "0x1af4", 6);
	}
	closedir(dir);
	return found;
}

/*
 * The render node of virtio-gpu, its modules loaded after DRM's (in the
 * order guest-kernel.sh numbered them); -1 after fail() when it does not
 * come within 10 s.
 */
static int vgpu_open(void)
{
	int err, fd = -1;

	if (guest_load_drm_modules())
		return fail("cannot load DRM's modules");
	err = guest_load_module_dir(VGPU_MODULES);
	if (err)	/* the render node's absence below is the verdict */
		printf("# load %s: %s\n", VGPU_MODULES, strerror(-err));
	for (int i = 0; i < 100 && fd < 0; i++) {
		fd = open(VGPU_RENDER, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			usleep(100000);
	}
	return fd < 0 ? fail("%s: %s", VGPU_RENDER, strerror(errno)) : fd;
}

static int vgpu_param(int fd, uint64_t param)
{
	int value = 0;
	struct drm_virtgpu_getparam gp = { .param = param, .value = (uintptr_t)&value };

	return ioctl(fd, DRM_IOCTL_VIRTGPU_GETPARAM, &gp) ? -errno : value;
}

/*
 * A HOST3D blob of @size bytes the guest may map, made by a virgl buffer of
 * @blob_id: its GEM handle in *@bo, and with @res its resource's id in *@res.
 */
static int vgpu_blob_create(int fd, uint64_t size, uint32_t blob_id, uint32_t *bo,
			    uint32_t *res)
{
	uint32_t cmd[VIRGL_PIPE_RES_CREATE_SIZE + 1] = {
		VIRGL_CMD0(VIRGL_CCMD_PIPE_RESOURCE_CREATE, 0, VIRGL_PIPE_RES_CREATE_SIZE),
		0,				/* target: PIPE_BUFFER */
		VIRGL_FORMAT_R8_UNORM,
		VIRGL_BIND_VERTEX_BUFFER,
		(uint32_t)size, 1, 1, 1,	/* width, height, depth, array size */
		0, 0,				/* last level, samples */
		VIRGL_RESOURCE_FLAG_MAP_PERSISTENT | VIRGL_RESOURCE_FLAG_MAP_COHERENT,
		blob_id,
	};
	struct drm_virtgpu_resource_create_blob rc = {
		.blob_mem = VIRTGPU_BLOB_MEM_HOST3D,
		.blob_flags = VIRTGPU_BLOB_FLAG_USE_MAPPABLE,
		.size = size,
		.cmd_size = sizeof(cmd),
		.cmd = (uintptr_t)cmd,
		.blob_id = blob_id,
	};

	if (ioctl(fd, DRM_IOCTL_VIRTGPU_RESOURCE_CREATE_BLOB, &rc))
		return -errno;
	*bo = rc.bo_handle;
	if (res)
		*res = rc.res_handle;
	return 0;
}

/*
 * The host's GPU copies @len bytes of resource @src into resource @dst (one
 * EXECBUFFER naming both blobs' handles @bo), and this waits for it on
 * @bo[0]; -1 after fail().
 */
static int vgpu_gpu_copy(int fd, const uint32_t bo[2], uint32_t dst, uint32_t src,
			 uint32_t len)
{
	uint32_t cmd[VIRGL_CMD_RESOURCE_COPY_REGION_SIZE + 1] = {
		VIRGL_CMD0(VIRGL_CCMD_RESOURCE_COPY_REGION, 0,
			   VIRGL_CMD_RESOURCE_COPY_REGION_SIZE),
		dst, 0, 0, 0, 0,	/* level, x, y, z */
		src, 0, 0, 0, 0,
		len, 1, 1,		/* the box: width, height, depth */
	};
	struct drm_virtgpu_execbuffer eb = {
		.size = sizeof(cmd), .command = (uintptr_t)cmd,
		.bo_handles = (uintptr_t)bo, .num_bo_handles = 2,
	};
	struct drm_virtgpu_3d_wait wait = { .handle = bo[0] };

	if (ioctl(fd, DRM_IOCTL_VIRTGPU_EXECBUFFER, &eb))
		return fail("EXECBUFFER of RESOURCE_COPY_REGION: %s", strerror(errno));
	if (ioctl(fd, DRM_IOCTL_VIRTGPU_WAIT, &wait))
		return fail("WAIT for the copy: %s", strerror(errno));
	return 0;
}

/* @bo mapped into this process (MAP_SHARED), or MAP_FAILED with errno set. */
static void *vgpu_blob_map(int fd, uint32_t bo, uint64_t size)
{
	struct drm_virtgpu_map map = { .handle = bo };

	if (ioctl(fd, DRM_IOCTL_VIRTGPU_MAP, &map))
		return MAP_FAILED;
	return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, map.offset);
}

/*
 * The render node of the virtio-gpu run-guest gave, checked for blobs,
 * host-visible memory and context init; the test skips (-1) where run-guest
 * gave no device or no QEMU for it, and fails where it gave one unusable.
 */
static int vgpu_ready(struct __test_metadata *_metadata)
{
	char why[200];
	int fd;

	if (guest_cmdline_get("novgpu", why, sizeof(why)))
		SKIP(return -1, "no virtio-gpu here: %s", why);
	/* run-guest --vgpu gave the device (pvtest.vgpu=1): then it must be usable */
	if (!guest_cmdline_get("vgpu", why, sizeof(why)) && !vgpu_present())
		SKIP(return -1, "no virtio-gpu device (run-guest --vgpu HOSTMEM)");
	ASSERT_TRUE(vgpu_present()) TH_LOG("run-guest gave a virtio-gpu device; none is here");
	fd = vgpu_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, vgpu_param(fd, VIRTGPU_PARAM_RESOURCE_BLOB)) TH_LOG("no blob resources");
	ASSERT_EQ(1, vgpu_param(fd, VIRTGPU_PARAM_HOST_VISIBLE)) TH_LOG("no host-visible window");
	ASSERT_EQ(1, vgpu_param(fd, VIRTGPU_PARAM_CONTEXT_INIT)) TH_LOG("no context init");
	return fd;
}

/* A virgl2 context for @fd's blobs: each open of the render node has its own. */
static int vgpu_context(int fd)
{
	struct drm_virtgpu_context_set_param param = {
		.param = VIRTGPU_CONTEXT_PARAM_CAPSET_ID, .value = CAPSET_VIRGL2,
	};
	struct drm_virtgpu_context_init ctx = {
		.num_params = 1, .ctx_set_params = (uintptr_t)&param,
	};

	return ioctl(fd, DRM_IOCTL_VIRTGPU_CONTEXT_INIT, &ctx) ?
	       fail("CONTEXT_INIT virgl2: %s", strerror(errno)) : 0;
}

static void vgpu_blob_free(int fd, uint32_t bo)
{
	struct drm_gem_close gc = { .handle = bo };

	ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc);
}

/*
 * The window's place (PVMAP_TEST_VGPU_WINDOW) and, with @p, where the page
 * this process maps at @p is (*@phys); -1 after fail().
 */
static int vgpu_window(uint64_t *base, uint64_t *size, const void *p, uint64_t *phys)
{
	struct pvmap_test_vgpu_window w = { .user_va = (uintptr_t)p };

	if (guest_test(PVMAP_TEST_VGPU_WINDOW, &w, 0, 0))
		return fail("VGPU_WINDOW: %s", w.h.msg[0] ? w.h.msg : strerror(errno));
	*base = w.base;
	*size = w.size;
	if (phys)
		*phys = w.user_phys;
	return 0;
}

/*
 * A blob of @size bytes on @fd, mapped (virtio-gpu maps a blob whole or not
 * at all) to find where the host placed it: its window offset in *@offset.
 * The blob stays; its map is gone, so that only the handle holds it.
 */
static int vgpu_blob_place(int fd, uint64_t size, uint32_t blob_id, uint32_t *bo,
			   uint64_t *offset)
{
	uint64_t base, window, phys;
	void *p;

	if (vgpu_blob_create(fd, size, blob_id, bo, NULL))
		return fail("RESOURCE_CREATE_BLOB: %s", strerror(errno));
	p = vgpu_blob_map(fd, *bo, size);
	if (p == MAP_FAILED)
		return fail("map the blob: %s", strerror(errno));
	if (vgpu_window(&base, &window, p, &phys)) {
		munmap(p, size);
		return -1;
	}
	munmap(p, size);
	if (phys < base || phys - base >= window)
		return fail("blob's first page at %#" PRIx64 ", outside the window %#" PRIx64
			    "+%#" PRIx64, phys, base, window);
	*offset = phys - base;
	return 0;
}

/*
 * A 1 MiB blob of a virgl2 context on the render node, mapped whole: the
 * map, its fd and handle; NULL when the test skips (vgpu_ready()).
 */
static uint8_t *vgpu_one_blob(struct __test_metadata *_metadata, int *fd, uint32_t *bo)
{
	uint8_t *p;

	*fd = vgpu_ready(_metadata);
	if (*fd < 0)
		return NULL;
	ASSERT_EQ(0, vgpu_context(*fd));
	ASSERT_EQ(0, vgpu_blob_create(*fd, VGPU_BLOB_SIZE, 1, bo, NULL))
		TH_LOG("RESOURCE_CREATE_BLOB");
	p = vgpu_blob_map(*fd, *bo, VGPU_BLOB_SIZE);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("map the blob: %s", strerror(errno));
	return p;
}

#define VGPU_AT_UNKNOWN	UINT64_MAX

/*
 * The host finds the 1 MiB blob in the window (info mtree) at window offset
 * @at, or with VGPU_AT_UNKNOWN the one blob of that size, and reads the
 * pattern of @seed there at position @pos (tests/host_halves/vgpu.py).
 */
static bool vgpu_host_reads_blob(uint64_t seed, uint64_t at, uint64_t pos)
{
	if (at == VGPU_AT_UNKNOWN)
		printf("# pvmap-host: vgpu-blob size=%#llx seed=%#" PRIx64 " pos=%#" PRIx64 "\n",
		       (unsigned long long)VGPU_BLOB_SIZE, seed, pos);
	else
		printf("# pvmap-host: vgpu-blob size=%#llx seed=%#" PRIx64 " at=%#" PRIx64
		       " pos=%#" PRIx64 "\n", (unsigned long long)VGPU_BLOB_SIZE, seed, at, pos);
	return guest_host_sync("vgpu-blob");
}

/* A blob's map at @p, its handle @bo, and the render node @fd, gone. */
static void vgpu_blob_release(int fd, uint32_t bo, void *p)
{
	munmap(p, VGPU_BLOB_SIZE);
	vgpu_blob_free(fd, bo);
	close(fd);
}

/*
 * A blob end to end: virtio-gpu with its host-visible window, a virgl2
 * context, a 1 MiB HOST3D blob created, mapped and written with a pattern
 * that reads back in the guest; the host then finds the blob in the window
 * (info mtree) and reads the same bytes there (pmemsave).
 */
TEST_F(pvmap, vgpu_blob_roundtrip)
{
	uint64_t seed, bad;
	uint32_t bo = 0;
	uint8_t *p;
	int fd;

	p = vgpu_one_blob(_metadata, &fd, &bo);
	if (!p)
		return;
	seed = random_u64();
	pvmap_pattern_fill(p, VGPU_BLOB_SIZE, seed, 0);
	bad = pvmap_pattern_check(p, VGPU_BLOB_SIZE, seed, 0);
	ASSERT_EQ(VGPU_BLOB_SIZE, bad) TH_LOG("byte %" PRIu64 " of the blob reads back wrong", bad);
	ASSERT_TRUE(vgpu_host_reads_blob(seed, VGPU_AT_UNKNOWN, 0))
		TH_LOG("the host did not read the blob");
	printf("# a 1 MiB HOST3D blob written through its mapping, read by the host\n");
}

/*
 * The host's GPU between two blobs: blob A, written through the guest's
 * map, is copied into blob B (zeroed the same way) by the host's renderer,
 * virgl's RESOURCE_COPY_REGION; B then holds A's bytes through the guest's
 * map of it, and in the window where the host reads it.
 */
TEST_F(pvmap, vgpu_blob_gpu_copy)
{
	uint64_t seed, bad, base, size, phys;
	uint32_t bo[2], res[2];	/* [0] blob B, [1] blob A */
	uint8_t *p[2];
	int fd;

	fd = vgpu_ready(_metadata);
	if (fd < 0)
		return;
	ASSERT_EQ(0, vgpu_context(fd));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, vgpu_blob_create(fd, VGPU_BLOB_SIZE, i + 1, &bo[i], &res[i]))
			TH_LOG("RESOURCE_CREATE_BLOB");
		p[i] = vgpu_blob_map(fd, bo[i], VGPU_BLOB_SIZE);
		ASSERT_NE(MAP_FAILED, p[i]) TH_LOG("map the blob: %s", strerror(errno));
	}
	seed = random_u64();
	pvmap_pattern_fill(p[1], VGPU_BLOB_SIZE, seed, 0);
	memset(p[0], 0, VGPU_BLOB_SIZE);
	ASSERT_EQ(0, vgpu_gpu_copy(fd, bo, res[0], res[1], VGPU_BLOB_SIZE));
	bad = pvmap_pattern_check(p[0], VGPU_BLOB_SIZE, seed, 0);
	ASSERT_EQ(VGPU_BLOB_SIZE, bad)
		TH_LOG("byte %" PRIu64 " of blob B is not blob A's after the copy", bad);
	/* the host reads blob B where the guest's map of it says it is */
	ASSERT_EQ(0, vgpu_window(&base, &size, p[0], &phys));
	ASSERT_TRUE(vgpu_host_reads_blob(seed, phys - base, 0))
		TH_LOG("the host did not read blob B");
	printf("# 1 MiB of blob A copied into blob B by the host's GPU, read in the guest"
	       " and by the host\n");
	munmap(p[1], VGPU_BLOB_SIZE);
	vgpu_blob_free(fd, bo[1]);
	vgpu_blob_release(fd, bo[0], p[0]);
}

/*
 * A window above 4 GiB on a 32-bit kernel (run-guest --vgpu 8G: SeaBIOS
 * moves it and virtio-pci's own BAR there), docs/upstream/virtio-gpu-above-4g/:
 * the device must probe with its whole window (x86's PAGE_MASK, the BAR's
 * length), and a blob's mmap must map the blob's place in that window, not
 * the truncated address (the casts in virtgpu_kms.c); the host reads the
 * guest's bytes at the window offset the guest's map says.
 */
TEST_F(pvmap, vgpu_window_above_4g)
{
	uint64_t seed, bad, base, size, phys;
	uint32_t bo = 0;
	uint8_t *p;
	int fd;

	p = vgpu_one_blob(_metadata, &fd, &bo);
	if (!p)
		return;
	ASSERT_EQ(0, vgpu_window(&base, &size, p, &phys));
	/* where QEMU mapped the blob, and whether the guest's map reaches it */
	printf("# pvmap-host: vgpu-place window=%#" PRIx64 " window_size=%#" PRIx64
	       " phys=%#" PRIx64 " size=%#llx\n", base, size, phys,
	       (unsigned long long)VGPU_BLOB_SIZE);
	ASSERT_TRUE(guest_host_sync("vgpu-place")) TH_LOG("the host did not find the blob");
	/* below 4 GiB this test shows nothing: the row's window size is wrong */
	ASSERT_LE(1ULL << 32, base) TH_LOG("the window is at %#" PRIx64 ", below 4 GiB", base);
	ASSERT_TRUE(phys >= base && phys - base < size)
		TH_LOG("the blob's map reaches %#" PRIx64 ", outside the window %#" PRIx64
		       "+%#" PRIx64, phys, base, size);
	seed = random_u64();
	pvmap_pattern_fill(p, VGPU_BLOB_SIZE, seed, phys - base);
	bad = pvmap_pattern_check(p, VGPU_BLOB_SIZE, seed, phys - base);
	ASSERT_EQ(VGPU_BLOB_SIZE, bad) TH_LOG("byte %" PRIu64 " of the blob reads back wrong", bad);
	ASSERT_TRUE(vgpu_host_reads_blob(seed, phys - base, phys - base))
		TH_LOG("the host did not read the blob");
	printf("# window %#" PRIx64 "+%#" PRIx64 "; a blob at %#" PRIx64 " read by the host\n",
	       base, size, phys);
	vgpu_blob_release(fd, bo, p);
}

/*
 * pvmap over the window: pvmap_test's io_mapping of the whole host-visible
 * window (the device stays virtio-pci's), on a live 1 MiB blob that the
 * guest program mapped and wrote. Each of pvmap's maps (atomic pages,
 * atomic ranges, a sleepable window) reads the bytes the last writer left
 * and writes its own, which the program reads back through its mapping;
 * the host reads the last in the window (pmemsave at the blob's place in
 * info mtree).
 */
TEST_F(pvmap, vgpu_pvmap_reads_blob)
{
	static const uint32_t engines[] = { PVMAP_PATTERN_ATOMIC, PVMAP_PATTERN_RANGE,
					    PVMAP_PATTERN_SLEEPABLE };
	static const char *const names[] = { "atomic", "range", "sleepable" };
	uint64_t base, window, phys, last, offset, seed, bad;
	uint32_t bo = 0;
	uint8_t *p;
	int fd;

	p = vgpu_one_blob(_metadata, &fd, &bo);
	if (!p)
		return;
	ASSERT_EQ(0, vgpu_window(&base, &window, p, &phys));
	ASSERT_TRUE(phys >= base && phys - base <= window - VGPU_BLOB_SIZE)
		TH_LOG("blob at %#" PRIx64 ", window %#" PRIx64 "+%#" PRIx64, phys, base, window);
	/* one range: its last page where its first says */
	ASSERT_EQ(0, vgpu_window(&base, &window, p + VGPU_BLOB_SIZE - PAGE, &last));
	ASSERT_EQ(phys + VGPU_BLOB_SIZE - PAGE, last);
	offset = phys - base;
	printf("# window %#" PRIx64 "+%#" PRIx64 ", blob at offset %#" PRIx64 "\n",
	       base, window, offset);
	seed = random_u64();
	pvmap_pattern_fill(p, VGPU_BLOB_SIZE, seed, offset);
	for (unsigned int i = 0; i < 3; i++) {
		struct pvmap_test_pattern req = {
			.offset = offset, .len = VGPU_BLOB_SIZE, .seed = seed,
			.engine = engines[i],
		};

		ASSERT_EQ(0, guest_test(PVMAP_TEST_PATTERN, &req, base, window))
			TH_LOG("%s: %s", names[i], req.h.msg);
		ASSERT_EQ(PVMAP_TEST_PASS, req.h.status)
			TH_LOG("%s read: %s", names[i], req.h.msg);
		req.seed = seed = random_u64();
		req.fill = 1;
		ASSERT_EQ(0, guest_test(PVMAP_TEST_PATTERN, &req, base, window));
		ASSERT_EQ(PVMAP_TEST_PASS, req.h.status)
			TH_LOG("%s write: %s", names[i], req.h.msg);
		bad = pvmap_pattern_check(p, VGPU_BLOB_SIZE, seed, offset);
		ASSERT_EQ(VGPU_BLOB_SIZE, bad)
			TH_LOG("%s wrote, the blob's mapping reads byte %" PRIu64 " wrong",
			       names[i], bad);
		printf("# %s maps: 1 MiB read, 1 MiB written, read back through the blob's mmap\n",
		       names[i]);
	}
	ASSERT_TRUE(vgpu_host_reads_blob(seed, offset, offset))
		TH_LOG("the host did not read the blob");
	vgpu_blob_release(fd, bo, p);
}

/*
 * The kernel's half of a hazard run, in a process of its own pinned to CPU
 * 0: while it waits there, CPU 0 keeps that process's page tables loaded
 * (lazy TLB). A thread of this process would share its mm, whose TLB flushes
 * (each munmap of a blob) make CPU 0 reload CR3 when the thread wakes, which
 * QEMU's TCG follows by dropping every TLB entry, global ones included.
 */
static pid_t blob_hazard_kernel(struct pvmap_test_blob_hazard *shared, int *ret,
				uint64_t base, uint64_t window)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	*ret = pin_cpu(0) ? -1 : guest_test(PVMAP_TEST_BLOB_HAZARD, shared, base, window);
	_exit(0);
}

static int blob_step(uint32_t step)
{
	struct pvmap_test_blob_hazard req = { .step = step, .timeout_ms = 20000 };

	return guest_test(PVMAP_TEST_BLOB_STEP, &req, 0, 0) ?
	       fail("BLOB_STEP %u: %s", step, strerror(errno)) : 0;
}

/*
 * Blob B's first bytes: zeroed and checked (@clear), or compared with the
 * stale message: -1 after fail(), else 1 when they are what is asked.
 */
static int blob_first_bytes(int fd, uint32_t bo, bool clear)
{
	static const uint8_t zero[PVMAP_TEST_STALE_LEN];
	uint8_t *p = vgpu_blob_map(fd, bo, VGPU_BLOB_SIZE);
	int is;

	if (p == MAP_FAILED)
		return fail("map blob B: %s", strerror(errno));
	if (clear)
		memset(p, 0, PVMAP_TEST_STALE_LEN);
	is = !memcmp(p, clear ? (const void *)zero : PVMAP_TEST_STALE_MSG, PVMAP_TEST_STALE_LEN);
	munmap(p, VGPU_BLOB_SIZE);
	return is;
}

/*
 * One run of the hazard where pages change owner: blob A (context A) at
 * window offset X; the kernel maps X through @engine, writes, unmaps and
 * waits on CPU 0; here, on CPU 1, blob A is freed and blob B (context B)
 * created until the host maps it at X; then the kernel writes through its
 * old pointer. @out: the kernel's answer (landed: that write did not
 * fault); *@in_b: blob B holds the stale message, read through B's own
 * mapping. The host then reads blob B in the window. 0, or -1 after fail().
 */
static int blob_hazard_once(int fd_a, int fd_b, uint64_t base, uint64_t window, uint32_t engine,
			    struct pvmap_test_blob_hazard *out, bool *in_b)
{
	struct { struct pvmap_test_blob_hazard req; int ret; } *shared;
	uint32_t bo_a = 0, bo_b = 0;
	uint64_t off_a, off_b = ~0ULL;
	int tries, holds, ret = -1, status;
	pid_t pid;

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (shared == MAP_FAILED)
		return fail("mmap: %s", strerror(errno));
	shared->req = (struct pvmap_test_blob_hazard){ .engine = engine, .timeout_ms = 20000 };
	shared->ret = -1;
	if (vgpu_blob_place(fd_a, VGPU_BLOB_SIZE, 1, &bo_a, &off_a) || blob_step(PVMAP_BLOB_ARM))
		goto out;
	shared->req.offset = off_a;
	pid = blob_hazard_kernel(&shared->req, &shared->ret, base, window);
	if (pid < 0) {
		fail("fork: %s", strerror(errno));
		goto out;
	}
	if (pin_cpu(1) || blob_step(PVMAP_BLOB_WAIT_UNMAPPED))
		goto go;
	vgpu_blob_free(fd_a, bo_a);
	bo_a = 0;
	/* blob A's unmap reaches the host asynchronously: until its place is free */
	for (tries = 0; tries < 100; tries++) {
		if (vgpu_blob_place(fd_b, VGPU_BLOB_SIZE, 2, &bo_b, &off_b))
			goto go;
		if (off_b == off_a)
			break;
		vgpu_blob_free(fd_b, bo_b);
		bo_b = 0;
		usleep(20000);
	}
	if (off_b != off_a)
		fail("blob B never took blob A's place %#" PRIx64, off_a);
	/* what blob B holds before the write: nothing of the message */
	else if (blob_first_bytes(fd_b, bo_b, true) == 1)
		ret = 0;
	else
		fail("blob B does not read back the zeroes written to it");
go:
	/* on a failure the old pointer's page is no blob B of ours: no write */
	blob_step(ret ? PVMAP_BLOB_CANCEL : PVMAP_BLOB_GO);
	waitpid(pid, &status, 0);
	unpin();
	*out = shared->req;
	if (!ret && (shared->ret || out->h.status != PVMAP_TEST_PASS))
		ret = fail("BLOB_HAZARD: %s", out->h.msg[0] ? out->h.msg : "it did not run");
	if (!ret) {
		holds = blob_first_bytes(fd_b, bo_b, false);
		*in_b = holds == 1;
		printf("# pvmap-host: vgpu-reuse at=%#" PRIx64 " landed=%u\n", off_b, out->landed);
		if (holds < 0 || !guest_host_sync("vgpu-reuse"))
			ret = holds < 0 ? -1 : fail("the host did not read blob B");
	}
out:
	if (bo_a)
		vgpu_blob_free(fd_a, bo_a);
	if (bo_b)
		vgpu_blob_free(fd_b, bo_b);
	munmap(shared, sizeof(*shared));
	return ret;
}

/*
 * The hazard where it is real: a kernel map of blob A's page, unmapped;
 * blob A freed and blob B of another context mapped by the host at the same
 * window offset; a write through the old pointer, through three engines:
 * - pvmap: it faults (clear-on-unmap: the PTE cleared, its TLB entry
 *   flushed) and blob B is untouched, in the guest and in the window as the
 *   host reads it; where pvmap maps the whole window for good (x86_64
 *   with hygiene=0) it lands, by design;
 * - pvmap_test's hazard engine (hazard_demo=1), whose unmap leaves the PTE
 *   as io_mapping did before clear-on-unmap: it lands in blob B;
 * - mainline's io_mapping_map_local_wc(): on x86_64 the window is mapped
 *   for good, and it lands; on i386 with HIGHMEM or docs/upstream/'s fix it
 *   faults. On i386 without HIGHMEM as released its unmap clears the PTE
 *   and leaves the TLB entry (mainline_nohighmem_flushes), but QEMU flushes
 *   every vCPU's TLB when the host remaps the window, so here it faults
 *   too; were it to land, that is the known upstream bug (XFAIL).
 */
TEST_F(pvmap, vgpu_blob_reuse_hazard)
{
	static const uint32_t engines[] = { PVMAP_BLOB_PVMAP, PVMAP_BLOB_MAINLINE,
					    PVMAP_BLOB_PTE_LEFT };
	static const char *const names[] = { "pvmap", "mainline", "PTE left (hazard_demo)" };
	struct pvmap_test_facilities fac = { 0 };
	bool highmem, fixed, x86_64, bug = false, in_b = false;
	uint64_t base, window;
	int fd_a, fd_b, ret = 0;

	fd_a = vgpu_ready(_metadata);
	if (fd_a < 0)
		return;
	ASSERT_LE(2, sysconf(_SC_NPROCESSORS_ONLN)) TH_LOG("two CPUs: the kernel waits on one");
	fd_b = open(VGPU_RENDER, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd_b);
	ASSERT_EQ(0, vgpu_context(fd_a));
	ASSERT_EQ(0, vgpu_context(fd_b));
	ASSERT_EQ(0, vgpu_window(&base, &window, NULL, NULL));
	ASSERT_EQ(0, guest_test(PVMAP_TEST_FACILITIES, &fac, base, window));
	highmem = fac.flags & PVMAP_TEST_F_HIGHMEM;
	fixed = guest_upstream_fixes();
	x86_64 = fac.paging >= 4;	/* the kernel's, whatever this program's */
	for (unsigned int i = 0; i < 3 && !ret; i++) {
		struct pvmap_test_blob_hazard r = { 0 };

		if (engines[i] == PVMAP_BLOB_PTE_LEFT) {
			if (!(fac.flags & PVMAP_TEST_F_PTE_LAYER)) {
				printf("# %s: pvmap built without CONFIG_PVMAP_TEST_HOOKS\n", names[i]);
				continue;
			}
			guest_test_unload();
			if (guest_test_load("hazard_demo=1")) {
				ret = fail("cannot load pvmap_test with hazard_demo=1");
				break;
			}
		}
		ret = blob_hazard_once(fd_a, fd_b, base, window, engines[i], &r, &in_b);
		/* the hazard engine's PTE goes with the module; later tests load it afresh */
		if (engines[i] == PVMAP_BLOB_PTE_LEFT)
			guest_test_unload();
		if (ret)
			break;
		printf("# %s: the write through the old pointer %s; blob B %s the message\n",
		       names[i], r.landed ? "landed" : "faulted", in_b ? "holds" : "does not hold");
		if (r.landed != in_b)
			ret = fail("%s: the kernel says the write %s, blob B says otherwise", names[i],
				   r.landed ? "landed" : "faulted");
		else if (engines[i] == PVMAP_BLOB_PVMAP && r.landed == r.clears)
			ret = fail("pvmap %s, and the write %s", r.clears ? "clears on unmap" :
				   "maps the window for good", r.landed ? "landed" : "faulted");
		else if (engines[i] == PVMAP_BLOB_PTE_LEFT && !r.landed)
			ret = fail("the PTE left behind, yet the write faulted");
		else if (engines[i] == PVMAP_BLOB_MAINLINE && x86_64 && !r.landed)
			ret = fail("x86_64's io_mapping maps the window for good, yet the write faulted");
		else if (engines[i] == PVMAP_BLOB_MAINLINE && !x86_64 && (highmem || fixed) &&
			 r.landed)
			ret = fail("mainline's unmap flushes here (HIGHMEM %s, %s), yet the write "
				   "landed", highmem ? "on" : "off",
				   fixed ? "docs/upstream/ applied" : "as released");
		else if (engines[i] == PVMAP_BLOB_MAINLINE && !x86_64 && !highmem && !fixed)
			bug = r.landed;
	}
	close(fd_b);
	close(fd_a);
	ASSERT_EQ(0, ret);
	if (bug)
		XFAIL(return, "expected: the known upstream bug that docs/upstream/ fixes: "
		      "mainline's stale write landed in another context's blob");
}

/*
 * The auditor over the window, clean: a live blob in each of two contexts,
 * mapped by this process and by a process spinning on each vCPU (so that
 * every vCPU has those user page tables loaded while the host audits). The
 * host takes the live blobs from info mtree: pvmap-audit must find the
 * blobs' user mappings (a process's mmaps) and nothing stale: exit 0.
 */
TEST_F(pvmap, audit_vgpu_clean)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t bo[2] = { 0 };
	uint64_t off[2];
	int fd[2], spinning, ret = 0;
	pid_t pids[64];
	void *p[2];

	fd[0] = vgpu_ready(_metadata);
	if (fd[0] < 0)
		return;
	ASSERT_TRUE(ncpus >= 1 && ncpus <= 64) TH_LOG("%ld CPUs", ncpus);
	fd[1] = open(VGPU_RENDER, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd[1]);
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, vgpu_context(fd[i]));
		ASSERT_EQ(0, vgpu_blob_place(fd[i], VGPU_BLOB_SIZE, i + 1, &bo[i], &off[i]));
		p[i] = vgpu_blob_map(fd[i], bo[i], VGPU_BLOB_SIZE);
		ASSERT_NE(MAP_FAILED, p[i]) TH_LOG("map blob %d: %s", i, strerror(errno));
		memset(p[i], 0x5a, VGPU_BLOB_SIZE);
	}
	printf("# pvmap-host: vgpu-clean at=%#" PRIx64 ",%#" PRIx64 " size=%#llx\n", off[0],
	       off[1], (unsigned long long)VGPU_BLOB_SIZE);
	guest_print_live();
	spinning = spinners_start((int)ncpus, pids);
	if (spinning < 0)
		ret = -1;
	else if (!guest_host_sync("vgpu-audit"))
		ret = fail("the host did not audit");
	spinners_stop(pids, spinning);
	for (int i = 0; i < 2; i++) {
		munmap(p[i], VGPU_BLOB_SIZE);
		vgpu_blob_free(fd[i], bo[i]);
		close(fd[i]);
	}
	ASSERT_EQ(0, ret);
}

/*
 * The auditor over the window, stale: pvmap_test's hazard engine
 * (hazard_demo=1) maps a page of a 2 MiB blob and leaves its PTE behind;
 * the blob is freed, so the host maps nothing there any more. pvmap-audit
 * must list that kernel mapping as stale (exit 1): a page of the window no
 * live blob holds. The host waits until info mtree shows the blob gone.
 * Skips where pvmap has no test hooks (no hazard engine).
 */
TEST_F(pvmap, audit_vgpu_stale)
{
	struct pvmap_test_facilities fac = { 0 };
	struct pvmap_test_hazard req = { 0 };
	uint64_t base, window, off;
	uint32_t bo = 0;
	int fd, ret = 0;

	fd = vgpu_ready(_metadata);
	if (fd < 0)
		return;
	ASSERT_EQ(0, vgpu_window(&base, &window, NULL, NULL));
	ASSERT_EQ(0, guest_test(PVMAP_TEST_FACILITIES, &fac, base, window));
	if (!(fac.flags & PVMAP_TEST_F_PTE_LAYER))
		SKIP(return, "pvmap built without CONFIG_PVMAP_TEST_HOOKS: no hazard engine");
	ASSERT_EQ(0, vgpu_context(fd));
	ASSERT_EQ(0, vgpu_blob_place(fd, 2 * VGPU_BLOB_SIZE, 1, &bo, &off));
	guest_test_unload();
	ASSERT_EQ(0, guest_test_load("hazard_demo=1"))
		TH_LOG("cannot load pvmap_test with hazard_demo=1");
	if (guest_test(PVMAP_TEST_HAZARD_MAP, &req, base + off, 2 * VGPU_BLOB_SIZE) ||
	    req.h.status != PVMAP_TEST_PASS || !req.demo) {
		ret = fail("hazard_map: %s", req.h.msg);
		goto out;
	}
	vgpu_blob_free(fd, bo);
	printf("# pvmap-host: vgpu-stale va=%#llx at=%#llx\n", (unsigned long long)req.va,
	       (unsigned long long)(off + req.offset));
	guest_print_live();
	if (!guest_host_sync("vgpu-stale-audit"))
		ret = fail("the host did not audit");
out:
	/* the hazard window's PTE goes with the module; later tests load it afresh */
	guest_test_unload();
	close(fd);
	ASSERT_EQ(0, ret);
}

TEST_HARNESS_MAIN
