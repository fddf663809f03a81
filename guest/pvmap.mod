/work/main/guest/pvmap_pci.o
