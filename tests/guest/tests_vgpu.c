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

/* virglrenderer's protocol (virgl_protocol.h): one PIPE_RESOURCE_CREATE */
#define VIRGL_CCMD_PIPE_RESOURCE_CREATE	48
#define VIRGL_PIPE_RES_CREATE_SIZE	11
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

/* A HOST3D blob of @size bytes the guest may map, made by a virgl buffer of @blob_id. */
static int vgpu_blob_create(int fd, uint64_t size, uint32_t blob_id, uint32_t *bo)
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
 * A blob end to end: virtio-gpu with its host-visible window, a virgl2
 * context, a 1 MiB HOST3D blob created, mapped and written with a pattern
 * that reads back in the guest; the host then finds the blob in the window
 * (info mtree) and reads the same bytes there (pmemsave).
 */
TEST_F(pvmap, vgpu_blob_roundtrip)
{
	struct drm_virtgpu_context_set_param ctx_param = {
		.param = VIRTGPU_CONTEXT_PARAM_CAPSET_ID, .value = CAPSET_VIRGL2,
	};
	struct drm_virtgpu_context_init ctx = {
		.num_params = 1, .ctx_set_params = (uintptr_t)&ctx_param,
	};
	uint64_t seed, bad;
	char why[200];
	uint32_t bo = 0;
	bool expected;
	uint8_t *p;
	int fd;

	if (guest_cmdline_get("novgpu", why, sizeof(why)))
		SKIP(return, "no virtio-gpu here: %s", why);
	/* run-guest --vgpu gave the device (pvtest.vgpu=1): then it must be usable */
	expected = guest_cmdline_get("vgpu", why, sizeof(why));
	if (!expected && !vgpu_present())
		SKIP(return, "no virtio-gpu device (run-guest --vgpu HOSTMEM)");
	if (!expected && access(VGPU_MODULES, F_OK))
		SKIP(return, "no virtio-gpu modules for this guest's kernel");
	ASSERT_TRUE(vgpu_present()) TH_LOG("run-guest gave a virtio-gpu device; none is here");
	ASSERT_EQ(0, access(VGPU_MODULES, F_OK)) TH_LOG("no virtio-gpu modules for this kernel");
	fd = vgpu_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, vgpu_param(fd, VIRTGPU_PARAM_RESOURCE_BLOB)) TH_LOG("no blob resources");
	ASSERT_EQ(1, vgpu_param(fd, VIRTGPU_PARAM_HOST_VISIBLE)) TH_LOG("no host-visible window");
	ASSERT_EQ(1, vgpu_param(fd, VIRTGPU_PARAM_CONTEXT_INIT)) TH_LOG("no context init");
	ASSERT_EQ(0, ioctl(fd, DRM_IOCTL_VIRTGPU_CONTEXT_INIT, &ctx))
		TH_LOG("CONTEXT_INIT virgl2: %s", strerror(errno));
	ASSERT_EQ(0, vgpu_blob_create(fd, VGPU_BLOB_SIZE, 1, &bo)) TH_LOG("RESOURCE_CREATE_BLOB");
	p = vgpu_blob_map(fd, bo, VGPU_BLOB_SIZE);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("map the blob: %s", strerror(errno));
	ASSERT_EQ(0, getrandom(&seed, sizeof(seed), 0) != sizeof(seed));
	pvmap_pattern_fill(p, VGPU_BLOB_SIZE, seed, 0);
	bad = pvmap_pattern_check(p, VGPU_BLOB_SIZE, seed, 0);
	ASSERT_EQ(VGPU_BLOB_SIZE, bad) TH_LOG("byte %" PRIu64 " of the blob reads back wrong", bad);
	printf("# pvmap-host: vgpu-blob size=%#llx seed=%#" PRIx64 "\n",
	       (unsigned long long)VGPU_BLOB_SIZE, seed);
	ASSERT_TRUE(guest_host_sync("vgpu-blob")) TH_LOG("the host did not read the blob");
	printf("# a 1 MiB HOST3D blob written through its mapping, read by the host\n");
}

TEST_HARNESS_MAIN
