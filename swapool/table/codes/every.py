"""Every code of the engine, in the order `swapool codes` lists them: a module of its own, so
that making one finding imports only its stage's codes (a clean check makes none of reading's,
the format's or imports')."""

from . import analysis, bindings, document, imports, lints, reading

CODES = (reading.IO, reading.YAML_SYNTAX, reading.YAML_DUPLICATE_KEY, reading.YAML_TAG, reading.YAML_ALIAS_BOMB,
         reading.YAML_KEY_TYPE, document.SCHEMA, document.UNKNOWN_INPUT, document.UNKNOWN_VALUE, document.UNKNOWN_SET,
         imports.IMPORT, lints.UNCASED_VALUE, lints.VALUE_CASE, document.DUPLICATE_VALUE, document.DUPLICATE_RULE_ID,
         analysis.GAP, analysis.OVERLAP, analysis.UNREACHABLE_RULE, analysis.REDUNDANT_RULE, analysis.ANALYSIS_PARTIAL,
         analysis.MERGEABLE_RULES, analysis.INVARIANT, analysis.CASE_FAILED, lints.EMPTY_CELL, lints.FULL_DOMAIN_CELL,
         lints.UNNAMED_VALUE, lints.UNUSED_INPUT, bindings.ENUM_IMPORT, bindings.ENUM_IMPORT_FAILED,
         bindings.ENUM_MISSING_MEMBER, bindings.ENUM_EXTRA_VALUE, bindings.ENUM_NOT_ALLOWED, analysis.ANALYSIS_BUDGET,
         document.RESERVED_NAME)
