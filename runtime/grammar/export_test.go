package grammar

// Recognize is the reference recognizer, for the tests of package grammar_test.
var Recognize = recognize
