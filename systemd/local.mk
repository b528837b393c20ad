# systemd: build fragment (see Makefile.am)
