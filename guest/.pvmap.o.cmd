cmd_/work/main/guest/pvmap.o := ld -m elf_i386 -z noexecstack --no-warn-rwx-segments   -r -o /work/main/guest/pvmap.o @/work/main/guest/pvmap.mod 
