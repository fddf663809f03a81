# SPDX-License-Identifier: GPL-2.0
"""A Debian VM booted from its own disk (tools/host/vm-image.sh's image).

QEMU boots the kernel and initramfs-tools initrd that the disk's /vmlinuz and
/initrd.img name (what a boot loader would take: the newest kernel installed),
so a kernel installed with apt in the VM is the one the next boot runs. The
host never parses the disk the VM wrote: the first boot's kernel and initrd
are the image's, which vm-image.sh copied out of the root it built before
any VM ran; before each power-off the host asks the VM which kernel its
links name (and the SHA-256 of its files), and fetches a new one, or an
initrd the VM rebuilt, through the agent, bounded in size (KERNEL_MAX,
INITRD_MAX). The host reaches the VM through pvmap-vm-agent on
a virtio-serial port: one request line "ID BASE64-SCRIPT", one reply line
"ID RC BASE64-OUTPUT", read with bounds (AGENT_REPLY_MAX, a deadline). The
serial console goes to a log file.
"""

import base64
import binascii
import hashlib
import os
import re
import shlex
import shutil
import socket
import subprocess
import time
import zlib

from . import guests
from . import qmp as qmplib
from . import screen

QEMU = {"i386": "qemu-system-i386", "amd64": "qemu-system-x86_64"}
SECONDARY_VGA_ID = "drmvga"
TOOLS = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# The VM's two std-VGA devices, by PCI class: the VGA the firmware boots on
# (0x0300) and the secondary-vga ("display, other", 0x0380).
DRIVERS = r"""
for d in /sys/bus/pci/devices/*; do
	[ "$(cat $d/vendor):$(cat $d/device)" = 0x1234:0x1111 ] || continue
	drv=none; [ -e $d/driver ] && drv=$(basename "$(readlink $d/driver)")
	echo "$(cat $d/class) $(basename $d) $drv"
done
"""
# Xorg's modesetting driver on one card, no input (the VM has no one at it),
# no glamor (no GL in the image)
XORG_CONF = """Section "ServerFlags"
	Option "AutoAddDevices" "false"
	Option "AutoAddGPU" "false"
	Option "AutoBindGPU" "false"
EndSection
Section "Device"
	Identifier "card"
	Driver "modesetting"
	Option "kmsdev" "@CARD@"
	Option "AccelMethod" "none"
EndSection
Section "Screen"
	Identifier "screen"
	Device "card"
	DefaultDepth 24
EndSection
"""


# Xorg's mode on the secondary-vga, whichever driver has it: bochs prefers the
# EDID's 1280x800, pvmap_drm 1024x768; one size, so that the SMPTE image fills
# the screen and the bench compares like with like
XORG_MODE = (1024, 768)


class VMError(Exception):
    """The VM did not boot, did not answer, or its disk could not be read."""


# What the host reads of the VM, bounded: the VM is the guest, whatever runs in it
# may send anything. One reply line of the agent (ID RC BASE64-OUTPUT) is at most
# AGENT_REPLY_MAX bytes and must come before the request's deadline, however fast
# the VM keeps sending; a file fetched (VM.fetch) at most its max_size bytes once
# gunzipped, in FETCH_CHUNK pieces, each gunzipped with a cap.
AGENT_REPLY_MAX = 64 << 20
FETCH_MAX = 16 << 20  # a screenshot (xwd: 3 MiB at 1024x768)
UHD = (3840, 2160)
UHD_XWD_MAX = 40 << 20  # xwd of a 3840x2160 root window: 33 MiB
# weston's desktop, made recognisable: one background colour, one panel colour
WESTON_BG = (0x30, 0x50, 0xa0)
WESTON_PANEL = (0x20, 0x60, 0x40)
WESTON_PANEL_ROWS = 32  # desktop-shell's panel at the top, scale 1
WESTON_INI = f"""[core]
idle-time=0
[shell]
background-image=/nonexistent
background-color=0xff{bytes(WESTON_BG).hex()}
panel-color=0xff{bytes(WESTON_PANEL).hex()}
"""
FETCH_CHUNK = 8 << 20


def reply_limit(size):
    """The longest agent reply that can carry @size bytes gzipped and base64-encoded
    twice (by the script, then by the agent): gzip's stored blocks, headers, a margin."""
    gz = size + size // 1000 + 4096
    b64 = 4 * (gz // 3 + 1)
    return 4 * (b64 // 3 + 1) + 64


def gunzip_bounded(data, max_size, what):
    """@data gunzipped, refused (VMError) past @max_size bytes: decompressed a piece
    at a time, never more than max_size + 1 bytes held, so a gzip bomb costs
    nothing; a stream cut short or followed by anything is refused too."""
    d = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    out = bytearray()
    pending = data
    try:
        while not d.eof:
            piece = d.decompress(pending, max_size + 1 - len(out))
            out += piece
            if len(out) > max_size:
                raise VMError(f"{what}: more than {max_size} bytes once gunzipped: refused")
            pending = d.unconsumed_tail
            if not piece and not pending:
                break
    except zlib.error as e:
        raise VMError(f"{what}: not gzip data ({e})") from None
    if not d.eof or d.unused_data:
        raise VMError(f"{what}: the gzip stream is cut short or followed by other data")
    return bytes(out)


# A kernel the VM installed, fetched through the agent: Debian's vmlinuz is about
# 8 MiB, its initramfs-tools initrd (MODULES=most) a few tens of MiB
KERNEL_MAX = 32 << 20
INITRD_MAX = 128 << 20
# what the VM's /vmlinuz and /initrd.img may name (Debian's links: boot/vmlinuz-RELEASE)
_RELEASE = r"([0-9A-Za-z][0-9A-Za-z.+~_-]*)"
_KERNEL_LINK = re.compile(r"/?boot/vmlinuz-" + _RELEASE)
_INITRD_LINK = re.compile(r"/?boot/initrd\.img-" + _RELEASE)


def file_sha256(path):
    """The SHA-256 of the host's file @path (hex), or None when it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def default_kernel(links):
    """The release the VM's `readlink /vmlinuz; readlink /initrd.img` output
    @links names, both links the same kernel's in /boot; VMError otherwise."""
    got = links.split("\n")
    k = _KERNEL_LINK.fullmatch(got[0].strip()) if got else None
    i = _INITRD_LINK.fullmatch(got[1].strip()) if len(got) > 1 else None
    if not k or not i or k.group(1) != i.group(1):
        raise VMError(f"the VM's /vmlinuz and /initrd.img name no one kernel in /boot: "
                      f"{links[:200]!r}")
    return k.group(1)


def make_data_disk(image, files):
    """An ext4 @image holding @files ({name in the disk: host path}),
    made without loop devices (mkfs.ext4 -d), for the VM's /dev/vdb."""
    stage = image + ".d"
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(stage)
    size = 0
    for name, src in files.items():
        dest = os.path.join(stage, name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy(src, dest)
        size += os.path.getsize(src)
    if os.path.exists(image):
        os.unlink(image)
    mb = size // (1 << 20) + 64
    subprocess.run(["mkfs.ext4", "-q", "-L", "pvmap-data", "-d", stage, image, f"{mb}M"],
                   stdout=subprocess.DEVNULL, check=True)
    shutil.rmtree(stage)


def write_smpte_xwd(path, mode=XORG_MODE):
    """SMPTE bars at @mode (width, height) as an XWD file, for xwud in the VM
    (VM.show_xwd)."""
    with open(path, "wb") as f:
        f.write(screen.xwd_bytes(screen.smpte_image(*mode), "smpte"))


def image(arch):
    """tools/host/vm-image.sh's image directory for @arch (built if needed)."""
    res = subprocess.run([os.path.join(TOOLS, "vm-image.sh"), arch], stdout=subprocess.PIPE,
                         text=True)
    if res.returncode != 0:
        raise VMError(f"vm-image.sh {arch} failed")
    return res.stdout.strip().split("\n")[-1]


class VM:
    """One VM: its disk (a copy of the image's), its data disk and ivshmem."""

    def __init__(self, image_dir, arch, work, data_disk, ivshmem_mb=64, drm_vga_mb=64,
                 mem_mb=1024, smp=2, icount=False):
        self.image_dir = image_dir
        self.arch = arch
        self.work = work
        self.data_disk = data_disk
        self.disk = os.path.join(work, "disk.img")
        self.ivshmem = os.path.join(work, "ivshmem")
        self.ivshmem_mb = ivshmem_mb
        self.drm_vga_mb = drm_vga_mb
        self.mem_mb = mem_mb
        self.smp = smp
        # QEMU's instruction counter as the VM's clock (one vCPU): what the VM
        # times is then a count of its instructions, the same on any host
        self.icount = icount
        self.agent_path = os.path.join(work, "agent.sock")
        self.qmp_path = os.path.join(work, "qmp.sock")
        self.proc = None
        # what the next boot runs: the image's kernel, written by vm-image.sh when it
        # built the image (follow_default_kernel() takes the one the VM installs)
        self.kernel = os.path.join(image_dir, "vmlinuz")
        self.initrd = os.path.join(image_dir, "initrd.img")
        with open(os.path.join(image_dir, "kernel")) as f:
            self.release = f.read().strip()
        self.agent = None
        self.buf = bytearray()
        self.scanned = 0  # how much of buf has no newline
        self.seq = 0
        self.boots = 0
        self.console = None
        os.makedirs(work, exist_ok=True)
        # a sparse copy: the image's disk is the cache's, never written
        subprocess.run(["cp", "--sparse=always", os.path.join(image_dir, "disk.img"),
                        self.disk], check=True)
        with open(self.ivshmem, "wb") as f:
            f.truncate(ivshmem_mb << 20)

    # --- boot and power ----------------------------------------------------
    def follow_default_kernel(self):
        """While the VM runs: the kernel and initrd its /vmlinuz and /initrd.img
        name become the next boot's, as a boot loader would take them. A file
        the host has already (the same SHA-256 as the VM says its file has)
        stays; another (a kernel apt installed, an initrd the VM rebuilt) is
        fetched through the agent, at most KERNEL_MAX and INITRD_MAX bytes,
        into the work directory. Returns the release."""
        release = default_kernel(self.check("readlink /vmlinuz; readlink /initrd.img",
                                            timeout=60, limit=4096))
        paths = [f"/boot/vmlinuz-{release}", f"/boot/initrd.img-{release}"]
        sums = self.check(f"sha256sum -- {' '.join(paths)}", timeout=300, limit=4096).split()
        if len(sums) != 4 or sums[1::2] != paths or \
                not all(re.fullmatch(r"[0-9a-f]{64}", h) for h in sums[0::2]):
            raise VMError(f"sha256sum of the VM's kernel: {' '.join(sums)[:200]!r}")
        files = []
        for path, want, have, bound in zip(paths, sums[0::2], (self.kernel, self.initrd),
                                           (KERNEL_MAX, INITRD_MAX)):
            if release == self.release and file_sha256(have) == want:
                files.append(have)
                continue
            data = self.fetch(path, max_size=bound, timeout=600)
            if not data or hashlib.sha256(data).hexdigest() != want:
                raise VMError(f"{path} fetched from the VM: {len(data)} bytes, "
                              "not the file its SHA-256 names")
            dest = os.path.join(self.work, os.path.basename(path))
            with open(dest, "wb") as f:
                f.write(data)
            files.append(dest)
        self.kernel, self.initrd = files
        self.release = release
        return release

    def boot(self, timeout=900):
        """Start QEMU on the disk's default kernel (the image's, or the one
        follow_default_kernel() took); return when the agent answers (seconds
        it took)."""
        if self.proc:
            raise VMError("the VM is already running")
        kernel, initrd = self.kernel, self.initrd
        for p in (self.agent_path, self.qmp_path):
            if os.path.exists(p):
                os.unlink(p)
        self.boots += 1
        self.console = os.path.join(self.work, f"console-{self.boots}.log")
        cmd = [QEMU[self.arch], "-accel", "tcg", "-M", "pc", "-cpu", guests.GUEST_CPU,
               "-smp", str(self.smp), "-m", f"{self.mem_mb}M", "-nodefaults", "-no-reboot",
               *(["-icount", guests.ICOUNT] if self.icount else []),
               "-display", "none", "-serial", f"file:{self.console}",
               "-kernel", kernel, "-initrd", initrd,
               "-append", "root=/dev/vda ro console=tty0 console=ttyS0,115200 "
                          "systemd.show_status=false",
               "-drive", f"file={self.disk},format=raw,if=virtio",
               "-drive", f"file={self.data_disk},format=raw,if=virtio,readonly=on",
               # the VM's own display: the std-VGA the firmware boots on
               "-device", "VGA,id=vga0",
               # pvmap_drm's, once the administrator opts in (hot-unpluggable)
               "-device", f"secondary-vga,id={SECONDARY_VGA_ID},vgamem_mb={self.drm_vga_mb}",
               "-object", f"memory-backend-file,id=aperture,share=on,mem-path={self.ivshmem},"
                          f"size={self.ivshmem_mb}M",
               "-device", "ivshmem-plain,memdev=aperture,id=aperture0",
               "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
               "-device", "virtio-serial",
               "-chardev", f"socket,id=agent,path={self.agent_path},server=on,wait=off",
               "-device", "virtserialport,chardev=agent,name=pvmap.agent"]
        with open(os.path.join(self.work, f"qemu-{self.boots}.log"), "w") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        start = time.monotonic()
        deadline = start + timeout
        while True:
            if self.proc.poll() is not None:
                self.proc = None
                raise VMError(f"QEMU exited ({self.console})")
            try:
                self._connect()
                self.run("true", timeout=min(30, max(1, deadline - time.monotonic())))
                # the boot done, udev's module loads with it: a driver bound or
                # an Xorg started before then raced them (under -icount, where
                # the agent answers early, Xorg on bochs failed to switch VTs
                # or died of SIGSEGV)
                self.check("udevadm settle --timeout=600; "
                           "systemctl is-system-running --wait >/dev/null; true",
                           timeout=max(1, deadline - time.monotonic()))
                return time.monotonic() - start
            except (OSError, VMError):
                self._disconnect()
                if time.monotonic() >= deadline:
                    self.kill()
                    raise VMError(f"no answer from the agent in {timeout} s ({self.console})")
                time.sleep(2)

    def shutdown(self, timeout=300, follow=True):
        """systemctl poweroff, as the administrator would; wait for QEMU. First,
        with @follow (a boot comes next), the kernel the disk names for the next
        boot (follow_default_kernel())."""
        if not self.proc:
            return
        if follow:
            self.follow_default_kernel()
        try:
            self.run("systemctl --no-block poweroff", timeout=30)
        except VMError:
            pass
        self._disconnect()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise VMError(f"the VM did not power off in {timeout} s") from None
        self.proc = None

    def reboot(self):
        """Power off and boot the disk's default kernel again: the host is the
        VM's boot loader. Returns the boot's seconds to the agent."""
        self.shutdown()
        return self.boot()

    def kill(self):
        self._disconnect()
        if self.proc:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def qmp(self):
        return qmplib.QMP(self.qmp_path, timeout=60).connect()

    # --- the agent -----------------------------------------------------------
    def _connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(self.agent_path)
        self.agent = sock
        self.buf = bytearray()
        self.scanned = 0

    def _disconnect(self):
        if self.agent:
            self.agent.close()
            self.agent = None

    def _line(self, deadline, limit, what):
        """The agent's next line, without its newline: VMError past @deadline
        (time.monotonic()), however fast the VM sends, or past @limit bytes
        (socket.timeout at the deadline)."""
        while True:
            if time.monotonic() > deadline:  # lines that keep coming do not extend it
                raise socket.timeout()
            nl = self.buf.find(b"\n", self.scanned)
            if nl >= 0:
                line = bytes(self.buf[:nl])
                del self.buf[:nl + 1]
                self.scanned = 0
                return line
            self.scanned = len(self.buf)
            if len(self.buf) > limit:
                # the rest of that line would read as the next reply: drop the connection
                self._disconnect()
                raise VMError(f"the agent's reply is longer than {limit} bytes: refused ({what})")
            left = deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout()
            self.agent.settimeout(left)
            chunk = self.agent.recv(min(1 << 20, limit + 1 - len(self.buf)))
            if not chunk:
                raise VMError("the agent closed the connection")
            self.buf += chunk

    def _request(self, script, timeout, limit):
        """Run @script with bash in the VM as root: (rc, output bytes). The whole
        exchange within @timeout seconds (a deadline, not a time per read); a
        reply line longer than @limit bytes is refused."""
        if not self.agent:
            raise VMError("not connected to the agent")
        self.seq += 1
        ident = f"r{self.seq}"
        what = script[:80]
        deadline = time.monotonic() + timeout
        try:
            # pipefail: a pipeline's failure is the script's (gzip | base64 of a missing file)
            body = base64.b64encode(b"set -o pipefail\n" + script.encode()).decode()
            self.agent.settimeout(max(0.001, deadline - time.monotonic()))
            self.agent.sendall(f"{ident} {body}\n".encode())
            while True:
                fields = self._line(deadline, limit, what).split(b" ")
                if fields[0] != ident.encode():
                    continue  # a reply to a request given up on
                if len(fields) not in (2, 3) or not fields[1].isdigit():
                    raise VMError(f"a malformed reply from the agent to: {what}")
                try:
                    out = base64.b64decode(fields[2], validate=True) if len(fields) > 2 else b""
                except binascii.Error:
                    raise VMError(f"a malformed reply from the agent to: {what}") from None
                return int(fields[1]), out
        except socket.timeout:
            raise VMError(f"no reply in {timeout} s to: {what}") from None
        except OSError as e:
            raise VMError(f"agent: {e}") from e

    def run(self, script, timeout=600, limit=AGENT_REPLY_MAX):
        """Run @script with bash in the VM as root; return (rc, output): within
        @timeout seconds, its reply at most @limit bytes (VMError otherwise)."""
        rc, out = self._request(script, timeout, limit)
        return rc, out.decode(errors="replace")

    def check(self, script, timeout=600, limit=AGENT_REPLY_MAX):
        """run(), raising VMError unless the script exits 0; returns its output."""
        rc, out = self.run(script, timeout, limit)
        if rc != 0:
            raise VMError(f"exit {rc}: {script[:120]}\n{out[-2000:]}")
        return out

    def console_text(self):
        with open(self.console, errors="replace") as f:
            return f.read()

    # --- what the tests and the bench ask of it -------------------------------
    def mount_data(self):
        """The data disk (make_data_disk's), read-only at /mnt."""
        self.check("mkdir -p /mnt && (mountpoint -q /mnt || mount -o ro /dev/vdb /mnt)")

    def displays(self):
        """{"vga": (pci address, driver), "secondary": (pci address, driver)}."""
        got = {}
        for line in self.check(DRIVERS).split("\n"):
            if line.strip():
                cls, addr, drv = line.split()
                got["vga" if cls.startswith("0x0300") else "secondary"] = (addr, drv)
        return got

    def bind_secondary(self, driver):
        """Give the secondary-vga to @driver (sysfs driver_override and
        drivers_probe, no reboot); VMError unless @driver has it then."""
        addr = self.displays()["secondary"][0]
        self.check(f"""
systemctl stop pvmap-xorg 2>/dev/null
modprobe pvmap_drm; modprobe bochs
d=/sys/bus/pci/devices/{addr}
[ -e $d/driver ] && echo {addr} >$d/driver/unbind
echo {driver} >$d/driver_override
echo {addr} >/sys/bus/pci/drivers_probe
[ "$(basename "$(readlink $d/driver)")" = {driver} ]
""", timeout=120)

    def card(self, driver):
        """/dev/dri/cardN of the secondary-vga when @driver drives it, else ''."""
        return self.check(f"""
for c in /sys/class/drm/card[0-9]*; do
	case ${{c##*/}} in *-*) continue ;; esac	# a connector, cardN-NAME
	[ "$(cat $c/device/class)" = 0x038000 ] || continue
	[ "$(basename "$(readlink $c/device/driver)")" = {driver} ] && echo /dev/dri/$(basename $c)
done
true""").strip()

    def start_xorg(self, card, mode=XORG_MODE):
        """Xorg on @card at @mode (width, height), started by systemd as the
        service pvmap-xorg (the agent's own service would take it down with
        it; RemainAfterExit keeps its exit status readable): (rc, output)."""
        conf = XORG_CONF.replace("@CARD@", card)
        return self.run(f"""
systemctl stop pvmap-xorg 2>/dev/null; systemctl reset-failed pvmap-xorg 2>/dev/null
rm -f /tmp/.X11-unix/X1 /tmp/.X1-lock	# a killed server's, which would pass for this one
cat >/root/xorg-pvmap.conf <<'EOF'
{conf}EOF
systemd-run --unit=pvmap-xorg -p RemainAfterExit=yes /usr/lib/xorg/Xorg :1 \\
	-config /root/xorg-pvmap.conf -nolisten tcp -noreset vt2 -logfile /root/Xorg.pvmap.log
for i in $(seq 60); do
	[ -S /tmp/.X11-unix/X1 ] && DISPLAY=:1 xset -q >/dev/null 2>&1 && break
	sleep 1
done
if ! DISPLAY=:1 xset -q >/dev/null 2>&1; then tail -n 20 /root/Xorg.pvmap.log; exit 1; fi
DISPLAY=:1 xrandr -s {mode[0]}x{mode[1]} &&
	DISPLAY=:1 xrandr | grep '^Screen 0: .* current {mode[0]} x {mode[1]},' >/dev/null
""", timeout=120)

    def show_xwd(self, name, dump_path, max_size=FETCH_MAX, settle=5):
        """xwud shows the data disk's XWD file @name on Xorg's :1 (start_xorg);
        then xwd of the root window (at most @max_size bytes) and the device's
        screendump (at @dump_path), @settle seconds after xwud started:
        (rc, output, root Image, screendump Image), the images None unless rc is 0."""
        rc, out = self.run(f"""
systemctl stop pvmap-xwud 2>/dev/null; systemctl reset-failed pvmap-xwud 2>/dev/null
systemd-run --unit=pvmap-xwud -E DISPLAY=:1 xwud -in /mnt/{name}
sleep {settle}
DISPLAY=:1 xwd -root -silent -out /root/root.xwd
""", timeout=120)
        if rc:
            return rc, out, None, None
        root = screen.read_xwd(self.fetch("/root/root.xwd", max_size=max_size))
        return rc, out, root, self.screendump(dump_path)

    def show_weston(self, card, dump_path, mode=None):
        """weston's DRM backend with the pixman renderer on @card (Xorg, which
        would hold the card, stopped first), its output at @mode (width,
        height) when given; then the device's screendump (at @dump_path) must
        be its desktop: below the panel every row WESTON_BG, the panel
        WESTON_PANEL, the size @mode's. Stops weston again: (ok, diagnostic
        lines, the screendump Image or None)."""
        card_name = os.path.basename(card)
        ini = WESTON_INI
        if mode:
            # the output's name is its connector's, Virtual-N: N counts the
            # virtual connectors made since boot (a driver bound again makes one)
            names = self.check(f"cd /sys/class/drm && ls -d {card_name}-*").split()
            if len(names) != 1:
                raise VMError(f"{card}: {len(names)} connectors ({' '.join(names)}), not one")
            output = names[0][len(card_name) + 1:]
            ini += f"[output]\nname={output}\nmode={mode[0]}x{mode[1]}\n"
        try:
            rc, out = self.run(f"""
systemctl stop pvmap-xorg pvmap-weston 2>/dev/null; systemctl reset-failed pvmap-weston 2>/dev/null
mkdir -p /root/.config /run/pvmap-weston && chmod 700 /run/pvmap-weston
cat >/root/.config/weston.ini <<'EOF'
{ini}EOF
rm -f /root/weston.log	# weston appends: an earlier run's lines would pass for this one's
systemd-run --unit=pvmap-weston -E XDG_RUNTIME_DIR=/run/pvmap-weston weston \\
	--config=/root/.config/weston.ini --backend=drm-backend.so --use-pixman \\
	--drm-device={card_name} --tty=3 --log=/root/weston.log
for i in $(seq 60); do grep -q "launching .*weston-desktop-shell" /root/weston.log 2>/dev/null && break; sleep 1; done
sleep 5
if ! systemctl is-active pvmap-weston; then tail -n 20 /root/weston.log; exit 1; fi
grep -E "using /dev/dri|Output .* enabled" /root/weston.log
""", timeout=180)
            diags = out.strip().split("\n")[-3:]
            if rc:
                return False, diags, None
            # weston fades its desktop in: a screendump during the fade has
            # dimmed colours (at 3840x2160 under TCG, one was taken 5 s after the start)
            for _ in range(6):
                img = self.screendump(dump_path)
                row = bytes(WESTON_BG) * img.width
                rows = range(WESTON_PANEL_ROWS, img.height)
                bad = sum(1 for y in rows
                          if img.pixels[y * len(row):(y + 1) * len(row)] != row)
                panel = screen.pixel(img, img.width // 2, WESTON_PANEL_ROWS // 4)
                if rows and not bad and panel == WESTON_PANEL:
                    break
                time.sleep(10)
        finally:
            self.run("systemctl stop pvmap-weston; chvt 1", timeout=60)
        size = (img.width, img.height)
        return (bool(rows) and not bad and panel == WESTON_PANEL and size == (mode or size),
                diags + [f"screendump {img.width}x{img.height}: {bad} of {len(rows)} rows "
                         f"below the panel not all the background colour, the panel "
                         f"{screen.hex_colour(panel)}"], img)

    def screendump(self, path):
        """QMP screendump of the secondary-vga, read back as an Image."""
        with self.qmp() as q:
            q.execute("screendump", filename=path, device=SECONDARY_VGA_ID)
        return screen.read_ppm(path)

    def fetch(self, path, max_size=FETCH_MAX, timeout=300):
        """A file of the VM's, through the agent (gzip, base64), FETCH_CHUNK bytes
        a request: VMError when it is (or turns out, whatever the VM says its size
        is) larger than @max_size bytes, each piece refused past what was asked."""
        q = shlex.quote(path)
        size = self.check(f"stat -L -c %s -- {q}", timeout=60, limit=4096).strip()
        if not size.isdigit():
            raise VMError(f"fetch {path}: the VM says its size is {size[:40]!r}")
        if int(size) > max_size:
            raise VMError(f"fetch {path}: {size} bytes, more than {max_size}: refused")
        size = int(size)
        out = bytearray()
        for k in range(0, max(1, -(-size // FETCH_CHUNK))):
            want = min(FETCH_CHUNK, size - len(out))  # never more than the VM said
            rc, text = self._request(
                f"dd if={q} bs={FETCH_CHUNK} skip={k} count=1 iflag=fullblock status=none | "
                "gzip -c | base64 -w0", timeout, reply_limit(want))
            if rc != 0:
                raise VMError(f"fetch {path}: exit {rc}: {text[-500:].decode(errors='replace')}")
            try:
                gz = base64.b64decode(text.strip(), validate=True)
            except binascii.Error:
                raise VMError(f"fetch {path}: not base64") from None
            piece = gunzip_bounded(gz, want, f"fetch {path}")
            out += piece
            if len(piece) < want:
                break
        if len(out) != size:
            raise VMError(f"fetch {path}: {len(out)} bytes read, the VM said {size}")
        return bytes(out)
