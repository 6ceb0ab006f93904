# ModelMigration: the two quick-start commands are `make demo` and `make test`.
SWIFT ?= swift
BUILD_FLAGS ?=
BIN = .build/debug
MIGRATE = $(BIN)/migrate
DEMO = demo

.PHONY: all build demo test clean

all: build

build:
	$(SWIFT) build $(BUILD_FLAGS)

# The main job on the bundled example, end to end.
demo: build
	@rm -rf $(DEMO) && mkdir -p $(DEMO)
	@echo "== 1. validate and compile the example model (Models/Contacts)"
	$(MIGRATE) validate
	$(MIGRATE) compile --summary -o $(DEMO)/Contacts.compiled.json
	@echo
	@echo "== 2. create a version-1 store and load sample data"
	$(BIN)/DemoData $(DEMO) 3000
	$(MIGRATE) create $(DEMO)/Contacts.sqlite --version 1
	$(MIGRATE) load $(DEMO)/Contacts.sqlite Person $(DEMO)/people.jsonl
	$(MIGRATE) load $(DEMO)/Contacts.sqlite Post $(DEMO)/posts.jsonl
	@echo
	@echo "== 3. inspect it"
	$(MIGRATE) inspect $(DEMO)/Contacts.sqlite
	@echo
	@echo "== 4. a few people, as JSON Lines"
	$(MIGRATE) dump $(DEMO)/Contacts.sqlite Person --limit 5

test:
	$(SWIFT) build $(BUILD_FLAGS)
	$(SWIFT) test $(BUILD_FLAGS)

clean:
	rm -rf .build $(DEMO)
