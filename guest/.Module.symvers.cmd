cmd_/work/main/guest/Module.symvers :=  sed 's/ko$$/o/'  /work/main/guest/modules.order | scripts/mod/modpost   -E   -W -o /work/main/guest/Module.symvers -e -i Module.symvers -T - 
