import Testing
import Weft

@Test func placeholder() { #expect(Container().resolve(Int.self) == nil) }
