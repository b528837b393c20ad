# vm-image: build fragment (see Makefile.am)
