# SPDX-License-Identifier: GPL-2.0
#
# dm-raidlab top level (dm-raidlab and dm-hddsim).
#
#   make            build dm-raidlab/dm-raidlab.ko and dm-hddsim/dm-hddsim.ko
#                   for the VM lab's kernel, and tools/calib/hddcalib (a static
#                   binary for the guest)
#   make W=1 C=1    the same with extra warnings and sparse
#   make checkpatch checkpatch.pl --strict over the kernel sources
#   make check      the full test run (KUnit + VM integration tests)
#   make demo       boot the lab and compare every scheme
#   make install    dm-raidlab.ko into /lib/modules/$(KVER)/updates, depmod
#   make install-tools   tools/raidlab as /usr/sbin/raidlab, the udev rules,
#                   the systemd units, the initramfs-tools hook, the example
#                   config, the documentation
#   make dkms-install    dkms add, build and install (every kernel, at upgrades)
#                   (DESTDIR and PREFIX as usual; Documentation/raidlab-ops.rst)
#
# The kernel is Debian's linux-image-amd64 (6.1); scripts/deps.sh installs
# it and its headers. KVER/KDIR may be given to build for another tree.

KVER ?= $(shell scripts/kver.sh)
KDIR ?= /usr/src/linux-headers-$(KVER)

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
	$(MAKE) -C tools/calib

# only the module's directory: M=$(CURDIR) would make kbuild's clean walk
# build/ too (the KUnit and VM lab trees)
clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/dm-raidlab clean
	$(MAKE) -C $(KDIR) M=$(CURDIR)/dm-hddsim clean
	$(MAKE) -C tools/calib clean
	rm -f Module.symvers modules.order

checkpatch:
	scripts/checkpatch.sh

# --------------------------------------------------------------- install ---
PREFIX ?= /usr
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
LIBDIR := $(DESTDIR)$(PREFIX)/lib/raidlab
DOCDIR := $(DESTDIR)$(PREFIX)/share/doc/dm-raidlab

# the running kernel's (the lab's KVER is for the VM lab): make install
# INSTALL_KVER=<release> for another
INSTALL_KVER ?= $(shell uname -r)
INSTALL_KDIR ?= /lib/modules/$(INSTALL_KVER)/build

install:
	$(MAKE) -C $(INSTALL_KDIR) M=$(CURDIR)/dm-raidlab modules
	$(MAKE) -C $(INSTALL_KDIR) M=$(CURDIR)/dm-raidlab INSTALL_MOD_DIR=updates \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	depmod $(if $(DESTDIR),-b $(DESTDIR)) $(INSTALL_KVER)

install-tools:
	install -d $(LIBDIR) $(DESTDIR)$(PREFIX)/sbin $(DOCDIR) \
		$(DESTDIR)$(PREFIX)/lib/udev/rules.d $(DESTDIR)$(PREFIX)/lib/systemd/system
	cp -r tools/raidlab tools/raidlab_lib $(LIBDIR)/
	find $(LIBDIR) -name __pycache__ -prune -exec rm -rf {} +
	ln -sf ../lib/raidlab/raidlab $(DESTDIR)$(PREFIX)/sbin/raidlab
	# the rules and units name the tool where PREFIX puts it
	for f in udev/60-raidlab.rules:lib/udev/rules.d systemd/raidlab-assemble.service:lib/systemd/system \
		systemd/raidlab-monitor.service:lib/systemd/system; do \
		sed 's|/usr/sbin/raidlab|$(PREFIX)/sbin/raidlab|g' dist/$${f%%:*} \
			>$(DESTDIR)$(PREFIX)/$${f#*:}/$$(basename $${f%%:*}) || exit 1; \
	done
	install -m 644 dist/raidlab.conf.example Documentation/*.rst $(DOCDIR)/
	# initramfs-tools reads /usr/share/initramfs-tools whatever PREFIX is
	install -d $(DESTDIR)/usr/share/initramfs-tools/hooks \
		$(DESTDIR)/usr/share/initramfs-tools/scripts/local-top
	sed 's|^TOOLDIR=.*|TOOLDIR=$$ROOT$(PREFIX)/lib/raidlab|' dist/initramfs-tools/hooks/raidlab \
		>$(DESTDIR)/usr/share/initramfs-tools/hooks/raidlab
	install -m 755 dist/initramfs-tools/scripts/local-top/raidlab \
		$(DESTDIR)/usr/share/initramfs-tools/scripts/local-top/raidlab
	chmod 755 $(DESTDIR)/usr/share/initramfs-tools/hooks/raidlab

# DKMS from this tree (a clean one: dkms copies it to /usr/src/dm-raidlab-$(VERSION))
dkms-install:
	dkms add $(CURDIR)
	dkms build dm-raidlab/$(VERSION)
	dkms install dm-raidlab/$(VERSION)

check:
	scripts/test.sh

demo:
	scripts/demo.sh

.PHONY: all modules clean checkpatch check demo install install-tools dkms-install
