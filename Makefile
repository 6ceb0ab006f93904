# ModelMigration: the two quick-start commands are `make demo` and `make test`.
SWIFT ?= swift
BUILD_FLAGS ?=
MIGRATE = .build/debug/migrate
DEMO = demo

.PHONY: all build demo test clean

all: build

build:
	$(SWIFT) build $(BUILD_FLAGS)

# The main job on the bundled example: validate and compile Models/Contacts.
demo: build
	@echo "== migrate validate"
	$(MIGRATE) validate --models Models
	@echo
	@echo "== migrate compile --summary"
	$(MIGRATE) compile Models --summary
	@mkdir -p $(DEMO)
	$(MIGRATE) compile Models -o $(DEMO)/Contacts.compiled.json

test:
	$(SWIFT) build $(BUILD_FLAGS)
	$(SWIFT) test $(BUILD_FLAGS)

clean:
	rm -rf .build $(DEMO)
