// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-demo: runs in the guest for `make demo` and says, in plain words,
 * which apertures pvmap found and what a whole-aperture ioremap_wc() does.
 */
#define _GNU_SOURCE
#include "guest.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <uapi/pvmap.h>

static const char *const kind_names[] = {
	[PVMAP_KIND_IVSHMEM] = "ivshmem-plain shared memory",
	[PVMAP_KIND_STDVGA] = "std VGA video memory",
	[PVMAP_KIND_QXL] = "qxl video memory",
};

int main(void)
{
	struct utsname uts;
	struct dirent *de;
	int found = 0;
	DIR *dir;

	setvbuf(stdout, NULL, _IOLBF, 0);
	uname(&uts);
	printf("\npvmap-demo: guest kernel %s %s, %ld MiB of RAM.\n", uts.machine,
	       uts.release, sysconf(_SC_PHYS_PAGES) * (sysconf(_SC_PAGESIZE) >> 10) >> 10);
	dir = opendir("/dev");
	while (dir && (de = readdir(dir))) {
		char path[300], dbg[320], result[64];
		struct pvmap_info info;
		const char *kind;
		int fd;

		if (strncmp(de->d_name, "pvmap", 5))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, PVMAP_IOC_INFO, &info)) {
			printf("pvmap-demo: cannot query %s\n", path);
			if (fd >= 0)
				close(fd);
			continue;
		}
		close(fd);
		found++;
		kind = info.kind < sizeof(kind_names) / sizeof(kind_names[0]) &&
		       kind_names[info.kind] ? kind_names[info.kind] : "unknown";
		printf("pvmap-demo: %s is a %llu MiB aperture (%s, PCI %s BAR%u)\n"
		       "pvmap-demo:   at guest-physical 0x%llx-0x%llx.\n",
		       path, (unsigned long long)info.aperture_size >> 20, kind,
		       info.pci_name, info.bar, (unsigned long long)info.aperture_base,
		       (unsigned long long)(info.aperture_base + info.aperture_size - 1));
		snprintf(dbg, sizeof(dbg), GUEST_DEBUGFS "/%s/whole_ioremap", de->d_name);
		if (guest_read_file(dbg, result, sizeof(result)) < 0) {
			printf("pvmap-demo:   (cannot read %s)\n", dbg);
			continue;
		}
		if (!strncmp(result, "failed", 6))
			printf("pvmap-demo:   Mapping all of it at once with ioremap_wc() FAILED:\n"
			       "pvmap-demo:   it does not fit in this kernel's address space.\n"
			       "pvmap-demo:   That is the problem pvmap solves: map it a page at a time.\n");
		else
			printf("pvmap-demo:   Mapping all of it at once with ioremap_wc() worked:\n"
			       "pvmap-demo:   this kernel has room for it.\n");
	}
	if (dir)
		closedir(dir);
	if (!found) {
		printf("pvmap-demo: no aperture found: is pvmap.ko loaded?\n");
		return 1;
	}
	printf("pvmap-demo: done.\n\n");
	return 0;
}
