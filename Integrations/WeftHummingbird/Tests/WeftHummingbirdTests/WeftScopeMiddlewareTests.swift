import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import Weft
import WeftHummingbird

/// `WeftScopeMiddleware`: one scope per request, reachable from the context, ended exactly once after the
/// response (or before it, when asked), also when the handler throws or the response is dropped unwritten;
/// teardown failures logged through the request's logger. Real HTTP requests (`.live`) where the timing of the
/// response matters.
@Suite(.timeLimit(.minutes(1))) struct WeftScopeMiddlewareTests {
    @Test func eachRequestGetsItsOwnScopeAndResolvesWithinItShareOneInstance() async throws {
        let tornDown = Counter()
        let app = application(container: journalContainer(tornDown: tornDown)) { router in
            router.get("journal") { _, context in
                let first = try await context.require(RequestJournal.self)
                let second = try context.scope.require(RequestJournal.self)
                return "\(ObjectIdentifier(first).hashValue) \(first === second)"
            }
        }

        let answers = try await app.test(.live) { client in
            var answers: [String] = []
            for _ in 0..<2 {
                let response = try await client.execute(uri: "/journal", method: .get)
                #expect(response.status == .ok)
                answers.append(response.text)
            }
            return answers
        }

        #expect(answers.allSatisfy { $0.hasSuffix(" true") })
        #expect(Set(answers).count == 2)
        #expect(await eventually { tornDown.value == 2 })
    }

    @Test func theScopeEndsOnceAfterTheBodyHasBeenWritten() async throws {
        let tornDown = Counter()
        let app = application(container: journalContainer(tornDown: tornDown)) { router in
            router.get("stream") { _, context in
                let journal = try await context.require(RequestJournal.self)
                let scope = try context.scope
                return Response(
                    status: .ok,
                    body: ResponseBody { writer in
                        // While the body is written, the scope still serves the request's instance.
                        let again = try scope.require(RequestJournal.self)
                        try await writer.write(ByteBuffer(string: "finished before writing: \(journal.isFinished), "))
                        try await writer.write(ByteBuffer(string: "same: \(again === journal)"))
                        try await writer.finish(nil)
                    })
            }
        }

        let response = try await app.test(.live) { client in
            try await client.execute(uri: "/stream", method: .get)
        }

        #expect(response.text == "finished before writing: false, same: true")
        #expect(await eventually { tornDown.value == 1 })
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(tornDown.value == 1)
    }

    @Test func aHandlerThatThrowsStillEndsItsScope() async throws {
        let tornDown = Counter()
        let app = application(container: journalContainer(tornDown: tornDown)) { router in
            router.get("broken") { _, context -> String in
                _ = try await context.require(RequestJournal.self)
                throw HTTPError(.conflict)
            }
        }

        let response = try await app.test(.router) { client in
            try await client.execute(uri: "/broken", method: .get)
        }

        #expect(response.status == .conflict)
        #expect(tornDown.value == 1)
    }

    @Test func aResponseDroppedBeforeItsBodyIsWrittenStillEndsItsScope() async throws {
        let tornDown = Counter()
        // Stands for a client gone before the body could be written: the response the scope middleware
        // returned is dropped, its body never written.
        let dropping = DroppingMiddleware()
        let app = application(container: journalContainer(tornDown: tornDown), before: [dropping]) { router in
            router.get("journal") { _, context in
                _ = try await context.require(RequestJournal.self)
                return "never sent"
            }
        }

        let response = try await app.test(.router) { client in
            try await client.execute(uri: "/journal", method: .get)
        }

        #expect(response.text == "replaced")
        #expect(await eventually { tornDown.value == 1 })
    }

    @Test func aTeardownFailureIsLoggedThroughTheRequestsLogger() async throws {
        let tornDown = Counter()
        let logs = LogCapture()
        let app = application(container: journalContainer(tornDown: tornDown, failing: true), logs: logs) { router in
            router.get("journal") { _, context in
                _ = try await context.require(RequestJournal.self)
                return "done"
            }
        }

        let response = try await app.test(.live) { client in
            try await client.execute(uri: "/journal", method: .get)
        }

        #expect(response.status == .ok)
        #expect(await eventually { logs.entries.contains { $0.message == "Ending the request's scope failed" } })
        let entry = try #require(logs.entries.first { $0.message == "Ending the request's scope failed" })
        #expect(entry.level == .error)
        #expect(entry.metadata["error"]?.contains("the journal would not close") == true)
        #expect(entry.metadata["weft.service"] == "RequestJournal")
        #expect(entry.metadata["hb.request.id"] != nil)
    }

    @Test func endingBeforeTheResponseTearsDownBeforeTheClientHasTheAnswer() async throws {
        let tornDown = Counter()
        let app = application(container: journalContainer(tornDown: tornDown), ending: .beforeResponse) { router in
            router.get("journal") { _, context in
                _ = try await context.require(RequestJournal.self)
                return "done"
            }
        }

        let countWhenAnswered = try await app.test(.live) { client in
            let response = try await client.execute(uri: "/journal", method: .get)
            #expect(response.status == .ok)
            return tornDown.value
        }

        #expect(countWhenAnswered == 1)
    }

    @Test func endingBeforeTheResponseTurnsASuccessWhoseTeardownFailedInto500() async throws {
        let logs = LogCapture()
        let container = journalContainer(tornDown: Counter(), failing: true)
        let app = application(container: container, ending: .beforeResponse, logs: logs) { router in
            router.get("journal") { _, context in
                _ = try await context.require(RequestJournal.self)
                return "done"
            }
        }

        let response = try await app.test(.router) { client in
            try await client.execute(uri: "/journal", method: .get)
        }

        #expect(response.status == .internalServerError)
        #expect(logs.entries.contains { $0.message == "Ending the request's scope failed" && $0.level == .error })
    }

    @Test func aRouteWithoutTheMiddlewareAnswers500AndSaysWhy() async throws {
        let logs = LogCapture()
        let router = Router(context: BasicWeftRequestContext.self)
        router.get("journal") { _, context in
            _ = try await context.require(RequestJournal.self)
            return "done"
        }
        let app = Application(router: router, logger: logs.logger())

        let response = try await app.test(.router) { client in
            try await client.execute(uri: "/journal", method: .get)
        }

        #expect(response.status == .internalServerError)
        #expect(logs.entries.contains { $0.message.contains("no WeftScopeMiddleware runs before it") })
    }
}

/// Drops the response of the rest of the chain without writing its body, answering with another.
struct DroppingMiddleware: RouterMiddleware {
    typealias Context = BasicWeftRequestContext

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        _ = try await next(request, context)
        return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "replaced")))
    }
}
