# SPDX-License-Identifier: GPL-2.0
"""Files in /dev/shm that QEMU fills with guest memory, made safe to create as root.

/dev/shm is world-writable: a file at a name another local user can predict
(pvmap-<pid>-...) may already be their symbolic link, and open("wb") would
truncate whatever it points to, then QEMU would fill it with the guest's
memory. So each run makes a directory of its own there (mkdtemp: a random
name, mode 0700, created by this process or not at all) and creates its
files inside it with O_CREAT|O_EXCL|O_NOFOLLOW: never an existing file,
never through a link.
"""

import os
import shutil
import tempfile

ROOT = "/dev/shm"


def private_dir(tag):
    """A new directory of this run's own under /dev/shm (mode 0700), named
    pvmap-@tag-<random>; the system's temporary directory where there is no /dev/shm."""
    return tempfile.mkdtemp(prefix=f"pvmap-{tag}-", dir=ROOT if os.path.isdir(ROOT) else None)


def create_file(path, size):
    """Create @path, @size bytes (sparse), mode 0600: FileExistsError when anything,
    a symbolic link included, is already there; nothing is followed or truncated."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.ftruncate(fd, size)
    except BaseException:
        os.close(fd)
        os.unlink(path)
        raise
    os.close(fd)
    return path


def remove_dir(path, keep=()):
    """Remove the private directory @path and what is in it, but the files named
    in @keep (then the directory stays, with them)."""
    if not path or not os.path.isdir(path):
        return
    kept = {os.path.basename(k) for k in keep
            if k and os.path.dirname(os.path.abspath(k)) == os.path.abspath(path)}
    if not kept:
        shutil.rmtree(path, ignore_errors=True)
        return
    for name in os.listdir(path):
        full = os.path.join(path, name)
        if name in kept:
            continue
        if os.path.isdir(full) and not os.path.islink(full):
            shutil.rmtree(full, ignore_errors=True)
        else:
            os.unlink(full)
