# man: build fragment (see Makefile.am)
