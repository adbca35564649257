import Testing

/// A time limit for tests that could hang, so that a hang fails the test instead of blocking the whole run: one
/// minute, where Swift Testing has time limits (macOS 13, iOS 16, tvOS 16, watchOS 9 and later; every other
/// platform). Below those versions, which Weft's floors reach, the test runs without one: `.timeLimit` itself
/// would not compile there (`.ci/deployment-floors.sh` checks that no test uses it directly).
let hangLimit: any TestTrait & SuiteTrait = timeLimit(minutes: 1)

/// ``hangLimit`` with `minutes` minutes, for the tests that need longer.
func timeLimit(minutes: Int) -> any TestTrait & SuiteTrait {
    if #available(macOS 13.0, iOS 16.0, watchOS 9.0, tvOS 16.0, *) {
        return TimeLimitTrait.timeLimit(.minutes(minutes))
    }
    return NoTimeLimit()
}

/// The trait of a test that runs without a time limit.
struct NoTimeLimit: TestTrait, SuiteTrait {}

@Suite struct HangLimitTests {
    @Test func hangLimitIsAOneMinuteTimeLimitWhereSwiftTestingHasTimeLimits() {
        if #available(macOS 13.0, iOS 16.0, watchOS 9.0, tvOS 16.0, *) {
            #expect((hangLimit as? TimeLimitTrait)?.timeLimit == .seconds(60))
            #expect((timeLimit(minutes: 2) as? TimeLimitTrait)?.timeLimit == .seconds(120))
        } else {
            #expect(hangLimit is NoTimeLimit)
        }
    }
}
