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

check:
	scripts/test.sh

demo:
	scripts/demo.sh

.PHONY: all modules clean checkpatch check demo
