# client: build fragment (see Makefile.am)
