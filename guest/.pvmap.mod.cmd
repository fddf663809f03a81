cmd_/work/main/guest/pvmap.mod := printf '%s\n'   pvmap_pci.o | awk '!x[$$0]++ { print("/work/main/guest/"$$0) }' > /work/main/guest/pvmap.mod
