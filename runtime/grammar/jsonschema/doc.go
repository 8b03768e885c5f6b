// Package jsonschema converts a JSON Schema into a grammar (package grammar) of the JSON texts valid against
// it, so that a constrained generation can only write valid JSON.
//
//	gr, err := jsonschema.Compile(schema, jsonschema.Options{})
//	c, err := vocab.Compile(gr) // then c.NewMatcher() per generation
//
// Keywords enforced: type (one or an array of types), enum, const, properties, required, additionalProperties
// (true by default, as the specification says), items, prefixItems (and draft-7 tuple items with
// additionalItems), minItems, maxItems, minLength, maxLength, pattern (ECMA-262 without lookarounds or
// backreferences, matched anywhere unless anchored), format (date, time, date-time, uuid, email, uri,
// hostname, ipv4), minimum, maximum, exclusiveMinimum, exclusiveMaximum (integers and numbers, exactly),
// anyOf, oneOf (branches must be provably disjoint: by type, const/enum, range, string language or a
// required discriminating property), allOf (merged keyword by keyword), $ref to any local JSON pointer
// ("#", "#/$defs/x", nested and recursive), $defs, definitions, minProperties, maxProperties. Annotations
// (title, description, examples, default, $schema, $id, $comment, deprecated, readOnly, writeOnly) are
// accepted. Every other keyword is an error naming it: a schema is enforced completely or not at all.
//
// The JSON written is a subset of the valid JSON, chosen so that each value has one spelling and a weak model
// cannot run on: compact (Options.Whitespace allows short runs of whitespace), members in the order the
// schema lists them (declared properties first, additional ones after, with keys that are none of the
// declared names), strings in canonical form (only '"', '\\' and control characters escaped, with the short
// escapes where JSON has them), numbers without leading zeros and, when unbounded, with at most 16 digits on
// each side of the point and a two-digit exponent; bounded numbers are plain decimals, and no "-0". Formats
// are written in a common subset of their syntax (a date is a real calendar date, leap years included; a
// time has seconds 00-59 and an offset). When minProperties needs additional members, exactly that many are
// written, with keys of distinct lengths so that no key repeats.
//
// A schema that admits no value is an error wrapping ErrUnsatisfiable; a branch of anyOf, or an optional
// property, that admits no value is left out.
package jsonschema
