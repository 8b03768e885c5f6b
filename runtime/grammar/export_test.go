package grammar

// Recognize is the reference recognizer, for the tests of package grammar_test.
var Recognize = recognize

// RaceEnabled reports a race-detector build (whose tests run a smaller matrix).
const RaceEnabled = raceEnabled
