# The two commands a new machine needs: `make test` and (once the server lands) `make run`.
# Each installs what is missing (scripts/bootstrap), then builds.
SHELL := /bin/bash
.DEFAULT_GOAL := test

# A copy of vips.pc without the flags SwiftPM warns about (written by scripts/bootstrap).
export PKG_CONFIG_PATH := $(CURDIR)/.build-pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))

.PHONY: bootstrap build test bench clean

bootstrap:
	@scripts/bootstrap

build: bootstrap
	swift build

test: bootstrap
	swift test

bench: bootstrap
	cd Benchmarks && swift package --allow-writing-to-package-directory benchmark

clean:
	swift package clean
	rm -rf .build-pkgconfig
