#if canImport(XCTest)
    import Weft
    import WeftTesting
    import XCTest

    /// `XCTAssertValid(_:)`: the one-line check of a whole container in an XCTest test. The failures it records
    /// are caught here (not recorded) so that the test can check them.
    final class XCTAssertValidTests: XCTestCase {
        final class Engine {}

        final class Car {
            init(engine: Engine) {}
        }

        /// A failure `XCTAssertValid` recorded while `catching` was on.
        struct Failure: Equatable {
            let description: String
            let file: String
            let line: Int
        }

        private var catching = false
        private var caught: [Failure] = []

        /// The failures recorded while `body` runs, kept from the test's own result.
        private func failures(_ body: () -> Void) -> [Failure] {
            catching = true
            defer { catching = false }
            caught = []
            body()
            return caught
        }

        #if canImport(Darwin)
            override func record(_ issue: XCTIssue) {
                guard catching else { return super.record(issue) }
                let location = issue.sourceCodeContext.location
                caught.append(
                    Failure(
                        description: issue.compactDescription,
                        file: location?.fileURL.path ?? "",
                        line: location?.lineNumber ?? 0
                    )
                )
            }
        #else
            override func recordFailure(
                withDescription description: String,
                inFile filePath: String,
                atLine lineNumber: Int,
                expected: Bool
            ) {
                guard catching else {
                    return super.recordFailure(
                        withDescription: description,
                        inFile: filePath,
                        atLine: lineNumber,
                        expected: expected
                    )
                }
                caught.append(Failure(description: description, file: filePath, line: lineNumber))
            }
        #endif

        private func brokenContainer() -> Container {
            let container = Container()
            container.autoregister(Car.self, initializer: Car.init)
            return container
        }

        func testAValidContainerRecordsNoFailureAndReturnsItsReport() {
            let container = Container()
            container.autoregister(Engine.self, initializer: Engine.init)
            container.autoregister(Car.self, initializer: Car.init)
            var report: VerificationReport?

            let recorded = failures { report = XCTAssertValid(container) }

            XCTAssertEqual(recorded, [])
            XCTAssertEqual(report?.isValid, true)
            XCTAssertEqual(report?.problems.count, 0)
        }

        func testABrokenContainerRecordsOneFailureWithTheWholeReportAtTheCallersLine() throws {
            let container = brokenContainer()
            var report: VerificationReport?
            var line = 0

            let recorded = failures {
                line = #line + 1
                report = XCTAssertValid(container)
            }

            let only = try XCTUnwrap(recorded.first)
            XCTAssertEqual(recorded.count, 1)
            XCTAssertEqual(report?.isValid, false)
            XCTAssertTrue(
                only.description.hasSuffix(try XCTUnwrap(report).description),
                "the failure does not end with the report: \(only.description)"
            )
            XCTAssertTrue(
                only.description.contains("[missing-registration] Car needs Engine, which is not registered."))
            XCTAssertEqual(only.line, line)
            XCTAssertEqual(only.file, #filePath)
        }

        func testStrictModeAlsoRecordsShortLivedDependenciesOfSingletons() throws {
            let container = Container()
            container.register(Engine.self) { _ in Engine() }.inObjectScope(.transient)
            container.register(Car.self) { r in Car(engine: try r.require()) }.inObjectScope(.container)

            let lenient = failures { XCTAssertValid(container) }
            let strict = failures { XCTAssertValid(container, strict: true) }

            XCTAssertEqual(lenient, [])
            let only = try XCTUnwrap(strict.first)
            XCTAssertEqual(strict.count, 1)
            XCTAssertTrue(only.description.contains("Weft verification failed (strict): 1 problem in 2 registrations"))
            XCTAssertTrue(
                only.description.contains("[captive-dependency] Car (.container) keeps one Engine (.transient)"))
        }

        func testTheFailureIsReportedWhereTheCallerSays() throws {
            let recorded = failures { XCTAssertValid(brokenContainer(), file: "Elsewhere.swift", line: 7) }

            XCTAssertEqual(recorded.map(\.file), ["Elsewhere.swift"])
            XCTAssertEqual(recorded.map(\.line), [7])
        }
    }
#endif
