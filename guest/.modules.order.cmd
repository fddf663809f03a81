cmd_/work/main/guest/modules.order := {   echo /work/main/guest/pvmap.ko; :; } > /work/main/guest/modules.order
