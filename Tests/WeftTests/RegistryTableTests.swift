import Testing
import Weft

/// A container keeps its registrations in a hash table of its own; these tests check the keys it must
/// tell apart and find again, whatever their names and however many there are.
@Suite struct RegistryTableTests {
    final class Named {
        let name: String?

        init(_ name: String?) {
            self.name = name
        }
    }

    @Test func everyOneOfTwentyThousandNamesFindsItsOwnRegistrationAfterTheTableGrows() throws {
        let container = Container()
        let names = (0..<20_000).map { "service-\($0)" }
        for name in names {
            container.register(Named.self, name: name) { _ in Named(name) }
        }

        for name in names {
            #expect(try container.require(Named.self, name: name).name == name)
        }
        #expect(container.resolve(Named.self, name: "service-20000") == nil)
        #expect(container.resolve(Named.self) == nil)
    }

    @Test func anEmptyNameAndNoNameAreDifferentRegistrations() throws {
        let container = Container()
        container.register(Named.self) { _ in Named(nil) }
        container.register(Named.self, name: "") { _ in Named("") }

        #expect(try container.require(Named.self).name == nil)
        #expect(try container.require(Named.self, name: "").name == "")
    }

    @Test func longAndNonASCIINamesAreFoundByEqualStringsBuiltAnotherWay() throws {
        let container = Container()
        let long = String(repeating: "a-rather-long-registration-name/", count: 8)
        let accented = "caf\u{E9}"
        container.register(Named.self, name: long) { _ in Named("long") }
        container.register(Named.self, name: accented) { _ in Named("accented") }

        // Equal strings made at run time, not the same storage.
        let longAgain = (0..<8).map { _ in "a-rather-long-registration-name/" }.joined()
        let decomposed = "cafe\u{301}"  // canonically equivalent to "café"
        #expect(try container.require(Named.self, name: longAgain).name == "long")
        #expect(try container.require(Named.self, name: decomposed).name == "accented")
    }

    @Test func aSingletonIsReadBackUnderEquivalentNamesOnceEachIsCachedForTheThread() throws {
        let container = Container()
        container.register(Named.self, name: "caf\u{E9}") { _ in Named("accented") }.inObjectScope(.container)
        container.register(Named.self, name: "K") { _ in Named("ascii") }.inObjectScope(.container)

        // Each name resolved twice: the second resolve of each reads the thread's lookup cache, which must find
        // the registration for an equal name however its bytes are written.
        let accented = try container.require(Named.self, name: "caf\u{E9}")
        for name in ["cafe\u{301}", "caf\u{E9}", "cafe\u{301}"] {
            #expect(try container.require(Named.self, name: name) === accented)
            #expect(container.resolve(Named.self, name: name) === accented)
        }
        let ascii = try container.require(Named.self, name: "K")
        for name in ["\u{212A}", "K", "\u{212A}"] {
            #expect(try container.require(Named.self, name: name) === ascii)
        }
    }

    @Test func aNameIsFoundByACanonicallyEquivalentNameInPlainASCII() throws {
        let container = Container()
        container.register(Named.self, name: "K") { _ in Named("ascii") }

        // U+212A KELVIN SIGN is canonically equivalent to "K": Swift's `==` says they are equal.
        #expect(try container.require(Named.self, name: "\u{212A}").name == "ascii")
    }

    @Test(arguments: [
        ("K", "\u{212A}"), ("a;b", "a\u{37E}b"), ("`x", "\u{1FEF}x"),
        ("a-long-name-with-K;and`", "a-long-name-with-\u{212A}\u{37E}and\u{1FEF}"),
        ("KKKKKKKKKKKKKKKK", String(repeating: "\u{212A}", count: 16)),
    ])
    func aNameWithAScalarWhoseCanonicalFormIsASCIIFindsTheASCIIName(ascii: String, other: String) throws {
        #expect(ascii == other)
        let container = Container()
        container.register(Named.self, name: ascii) { _ in Named("ascii") }
        #expect(try container.require(Named.self, name: other).name == "ascii")

        let reversed = Container()
        reversed.register(Named.self, name: other) { _ in Named("other") }
        #expect(try reversed.require(Named.self, name: ascii).name == "other")
    }

    /// The registry hashes ASCII names from their bytes and maps three scalars to ASCII (see `NameHash`): no
    /// other scalar may be equal to an ASCII character. One can be only when its canonical decomposition is a
    /// single ASCII character (a singleton decomposition), and every such scalar is a full composition
    /// exclusion, so those are the ones to check.
    @Test func onlyThreeScalarsOutsideASCIIAreEqualToAnASCIICharacter() {
        let asciiCharacters = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        var equalToASCII: [UInt32] = []
        for value in UInt32(0x80)...0x10_FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.isFullCompositionExclusion else { continue }
            let text = String(scalar)
            if asciiCharacters.contains(text) { equalToASCII.append(value) }
        }
        #expect(equalToASCII == [0x037E, 0x1FEF, 0x212A])
    }

    @Test func namesThatDifferOnlyInTheirLastByteAreDifferentRegistrations() throws {
        let container = Container()
        let base = "a-name-of-seventeen"
        for last in ["a", "b", "c"] {
            container.register(Named.self, name: base + last) { _ in Named(last) }
        }

        #expect(try container.require(Named.self, name: base + "a").name == "a")
        #expect(try container.require(Named.self, name: base + "b").name == "b")
        #expect(try container.require(Named.self, name: base + "c").name == "c")
        #expect(container.resolve(Named.self, name: base) == nil)
    }

    @Test func reRegisteringManyKeysReplacesEachWithoutGrowingTheirNumber() throws {
        let container = Container()
        for round in 0..<3 {
            for index in 0..<500 {
                container.register(Named.self, name: "n\(index)") { _ in Named("round \(round)") }
            }
        }

        #expect(try container.require(Named.self, name: "n0").name == "round 2")
        #expect(try container.require(Named.self, name: "n499").name == "round 2")
        let described = String(describing: container)
        #expect(described.components(separatedBy: "Service: ").count - 1 == 500)
    }

    @Test func removeAllEmptiesTheTableAndItFillsAgain() throws {
        let container = Container()
        for index in 0..<100 {
            container.register(Named.self, name: "n\(index)") { _ in Named("first") }
        }
        container.removeAll()
        #expect(!container.hasAnyRegistration(of: Named.self, name: "n7"))

        container.register(Named.self, name: "n7") { _ in Named("second") }
        #expect(try container.require(Named.self, name: "n7").name == "second")
        #expect(container.resolve(Named.self, name: "n8") == nil)
    }
}
