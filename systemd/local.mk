# systemd/: units (socket activation), tmpfiles. Installed to the unit dir from configure.
systemdsystemunit_DATA = systemd/suspendd.service
tmpfilesdir = $(prefix)/lib/tmpfiles.d
tmpfiles_DATA = systemd/suspendd.conf
systemd/suspendd.service: $(srcdir)/systemd/suspendd.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) systemd && sed -e 's|@sbindir[@]|$(sbindir)|g' $< > $@
systemd/suspendd.conf: $(srcdir)/systemd/suspendd.tmpfiles
	$(AM_V_GEN)$(MKDIR_P) systemd && cp $< $@
# The opt-in drop-in that routes systemctl suspend through suspendd (enable/undo: in the file).
pkgdata_DATA = systemd/systemd-suspend.conf
systemd/systemd-suspend.conf: $(srcdir)/systemd/systemd-suspend.conf.in Makefile
	$(AM_V_GEN)$(MKDIR_P) systemd && sed -e 's|@bindir[@]|$(bindir)|g' -e 's|@pkgdatadir[@]|$(pkgdatadir)|g' $< > $@
# ... and the same for hibernate, hybrid-sleep and suspend-then-hibernate, from one template
pkgdata_DATA += systemd/systemd-hibernate.conf systemd/systemd-hybrid-sleep.conf \
	systemd/systemd-suspend-then-hibernate.conf
SLEEP_DROPIN_SED = sed -e 's|@bindir[@]|$(bindir)|g' -e 's|@pkgdatadir[@]|$(pkgdatadir)|g'
systemd/systemd-hibernate.conf: $(srcdir)/systemd/systemd-hibernate.conf.in Makefile
	$(AM_V_GEN)$(MKDIR_P) systemd && $(SLEEP_DROPIN_SED) -e 's|@unit[@]|systemd-hibernate.service|g' \
		-e 's|@name[@]|systemd-hibernate|g' -e 's|@verb[@]|hibernate|g' -e 's|@command[@]|hibernate|g' $< > $@
systemd/systemd-hybrid-sleep.conf: $(srcdir)/systemd/systemd-hibernate.conf.in Makefile
	$(AM_V_GEN)$(MKDIR_P) systemd && $(SLEEP_DROPIN_SED) -e 's|@unit[@]|systemd-hybrid-sleep.service|g' \
		-e 's|@name[@]|systemd-hybrid-sleep|g' -e 's|@verb[@]|hybrid-sleep|g' -e 's|@command[@]|hybrid-sleep|g' $< > $@
systemd/systemd-suspend-then-hibernate.conf: $(srcdir)/systemd/systemd-hibernate.conf.in Makefile
	$(AM_V_GEN)$(MKDIR_P) systemd && $(SLEEP_DROPIN_SED) -e 's|@unit[@]|systemd-suspend-then-hibernate.service|g' \
		-e 's|@name[@]|systemd-suspend-then-hibernate|g' -e 's|@verb[@]|suspend-then-hibernate|g' \
		-e 's|@command[@]|suspend-then-hibernate|g' $< > $@
CLEANFILES += systemd/systemd-hibernate.conf systemd/systemd-hybrid-sleep.conf \
	systemd/systemd-suspend-then-hibernate.conf
EXTRA_DIST += systemd/systemd-hibernate.conf.in
sysusersdir = $(prefix)/lib/sysusers.d
sysusers_DATA = systemd/sysusers/suspendd.conf
systemd/sysusers/suspendd.conf: $(srcdir)/systemd/suspendd.sysusers
	$(AM_V_GEN)$(MKDIR_P) systemd/sysusers && cp $< $@
CLEANFILES += systemd/suspendd.service systemd/suspendd.conf systemd/systemd-suspend.conf \
	systemd/sysusers/suspendd.conf
EXTRA_DIST += systemd/suspendd.service.in systemd/suspendd.tmpfiles systemd/systemd-suspend.conf.in \
	systemd/suspendd.sysusers
dist_systemdsystemunit_DATA = systemd/suspendd.socket
