# spraylab quick start: `make demo` and `make test` (README.md).
# `make` alone builds; binaries land under build/ (meson's default places).
BUILD   ?= build
WERROR  ?= 0
MESON_OPTS := -Dwerror=$(if $(filter 1,$(WERROR)),true,false)

.PHONY: all build setup demo test format clean

all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

build: $(BUILD)/build.ninja
	@meson configure $(BUILD) $(MESON_OPTS) >/dev/null
	ninja -C $(BUILD)

demo: setup build
	./$(BUILD)/fabric/spraylab demo

test: setup build
	meson test -C $(BUILD) --print-errorlogs --num-processes 2

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
