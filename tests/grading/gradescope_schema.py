"""Gradescope's results.json format as a JSON Schema, and a small validator.

The schema is written from Gradescope's "Autograder Specifications" page
(section "Output format"): every field it lists, with the types and values it
allows, and nothing else (`additionalProperties: false` catches typos).

`validate` uses the `jsonschema` package when it is installed, and otherwise
`check_schema`, which knows just the keywords this schema uses.
"""

from __future__ import annotations

from typing import Any

VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
TEXT_FORMAT = {"enum": ["text", "simple_format", "html", "md", "ansi"]}
NUMBER = {"type": "number"}
STRING = {"type": "string"}

TEST_CASE = {
    "type": "object",
    "properties": {
        "score": NUMBER,
        "max_score": NUMBER,
        "status": {"enum": ["passed", "failed"]},
        "name": STRING,
        "name_format": TEXT_FORMAT,
        "number": STRING,
        "output": STRING,
        "output_format": TEXT_FORMAT,
        "tags": {"type": "array", "items": STRING},
        "visibility": VISIBILITY,
        "extra_data": {"type": "object"},
    },
    "additionalProperties": False,
}

LEADERBOARD_ENTRY = {
    "type": "object",
    "properties": {
        "name": STRING,
        "value": {"type": ["number", "string"]},
        "order": {"enum": ["asc", "desc"]},
    },
    "required": ["name", "value"],
    "additionalProperties": False,
}

RESULTS_SCHEMA = {
    "type": "object",
    "properties": {
        "score": NUMBER,
        "execution_time": NUMBER,
        "output": STRING,
        "output_format": TEXT_FORMAT,
        "test_output_format": TEXT_FORMAT,
        "test_name_format": TEXT_FORMAT,
        "visibility": VISIBILITY,
        "stdout_visibility": VISIBILITY,
        "extra_data": {"type": "object"},
        "tests": {"type": "array", "items": TEST_CASE},
        "leaderboard": {"type": "array", "items": LEADERBOARD_ENTRY},
    },
    "additionalProperties": False,
    # "score" is optional at the top only if every test case carries one.
    "anyOf": [
        {"required": ["score"]},
        {"required": ["tests"], "properties": {"tests": {"items": {"required": ["score"]}}}},
    ],
}

JSON_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "number": (int, float),
    "integer": int,
    "boolean": bool,
}


def check_schema(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """The ways `value` breaks `schema` (empty if none), for the keywords used above.

    >>> check_schema({"score": "high"}, RESULTS_SCHEMA)
    ['$.score: expected number, found str']
    """
    errors: list[str] = []
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        is_bool = isinstance(value, bool)
        if not any(
            isinstance(value, JSON_TYPES[kind]) and (kind == "boolean") == is_bool for kind in kinds
        ):
            return [f"{path}: expected {' or '.join(kinds)}, found {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, dict):
        errors += [
            f"{path}: missing {key!r}" for key in schema.get("required", []) if key not in value
        ]
        properties = schema.get("properties", {})
        for key, item in value.items():
            if key in properties:
                errors += check_schema(item, properties[key], f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected field {key!r}")
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            errors += check_schema(item, schema["items"], f"{path}[{index}]")
    if "anyOf" in schema and all(check_schema(value, option, path) for option in schema["anyOf"]):
        errors.append(f"{path}: matches none of the allowed forms")
    return errors


def validate(document: Any) -> list[str]:
    """The ways `document` breaks Gradescope's results.json format (empty if none)."""
    try:
        import jsonschema
    except ImportError:
        return check_schema(document, RESULTS_SCHEMA)
    validator = jsonschema.Draft202012Validator(RESULTS_SCHEMA)
    return [f"{error.json_path}: {error.message}" for error in validator.iter_errors(document)]
