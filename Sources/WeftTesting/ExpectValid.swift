import Testing
import Weft

#if canImport(XCTest)
    import XCTest
#endif

/// Checks `container` with `Container.verificationReport(strict:)` and, when it has problems, records one
/// Swift Testing issue whose comment is the whole report: every missing registration, unbuildable cycle,
/// captive dependency and failing factory, each with its path and a hint.
///
/// ```swift
/// import Testing
/// import WeftTesting
///
/// @Test func containerIsValid() {
///     expectValid(AppContainer.make())
/// }
/// ```
///
/// The same as `try container.verify()` in a throwing test, except that the test goes on after the issue.
/// Verification builds closure registrations in a throwaway copy of the container; the container's own
/// instances are not touched.
///
/// - Parameters:
///   - container: The container to verify.
///   - strict: Also count `.transient` and `.graph` dependencies of singletons as captive.
///   - sourceLocation: Where the issue is reported; the caller's line unless given.
/// - Returns: The report, for further expectations.
@discardableResult
public func expectValid(
    _ container: Container,
    strict: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) -> VerificationReport {
    let report = container.verificationReport(strict: strict)
    if !report.isValid {
        Issue.record(Comment(rawValue: report.description), sourceLocation: sourceLocation)
    }
    return report
}

#if canImport(XCTest)
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// Checks `container` with `Container.verificationReport(strict:)` and fails the current XCTest test with
    /// the whole report when it has problems.
    ///
    /// ```swift
    /// func testContainerIsValid() {
    ///     XCTAssertValid(AppContainer.make())
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - container: The container to verify.
    ///   - strict: Also count `.transient` and `.graph` dependencies of singletons as captive.
    ///   - file: Where the failure is reported; the caller's file unless given.
    ///   - line: Where the failure is reported; the caller's line unless given.
    /// - Returns: The report, for further assertions.
    @discardableResult
    public func XCTAssertValid(
        _ container: Container,
        strict: Bool = false,
        file: StaticString = #filePath,
        line: UInt = #line
    ) -> VerificationReport {
        let report = container.verificationReport(strict: strict)
        if !report.isValid {
            XCTFail(report.description, file: file, line: line)
        }
        return report
    }
#endif
