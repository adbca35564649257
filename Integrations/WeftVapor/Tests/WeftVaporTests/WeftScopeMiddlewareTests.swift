import Testing
import VaporTesting
import Weft
import WeftVapor

/// A Vapor application with `app.container` set, `WeftScopeMiddleware` installed and routes that use the
/// request's scope; every request goes over real HTTP on loopback.
@Suite struct WeftScopeMiddlewareTests {
    let ledger = Ledger()
    let logs = LogStore()

    func configure(_ app: Application) {
        let container = Container()
        container.register(UnitOfWork.self) { _ in UnitOfWork(ledger: ledger) }.inObjectScope(.scoped)
        container.register(FailingCommit.self) { _ in FailingCommit() }.inObjectScope(.scoped)
        app.container = container
        app.middleware.use(CollectingLoggerMiddleware(store: logs))
        app.middleware.use(WeftScopeMiddleware())
        app.get("work") { req async throws -> String in
            let first = try await req.require(UnitOfWork.self)
            let second = try await req.require(UnitOfWork.self)
            return first === second ? "\(first.id)" : "two units of work in one request"
        }
        app.get("fails") { req async throws -> String in
            _ = try await req.require(UnitOfWork.self)
            throw Abort(.conflict)
        }
        app.get("commit") { req async throws -> String in
            _ = try await req.require(FailingCommit.self)
            return "committed"
        }
    }

    @Test func scopedServiceIsSharedWithinOneRequestAndNewForTheNext() async throws {
        try await withApp(configure: configure) { app in
            let tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
            try await tester.test(.GET, "work") { response in #expect(response.body.string == "1") }
            try await tester.test(.GET, "work") { response in #expect(response.body.string == "2") }
        }
    }

    @Test func requestScopeIsTornDownBeforeTheAnswerArrives() async throws {
        try await withApp(configure: configure) { app in
            let tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
            try await tester.test(.GET, "work") { response in
                #expect(response.status == .ok)
                #expect(ledger.tornDownIDs == [1])
            }
        }
    }

    @Test func requestScopeEndsWhenTheRouteThrows() async throws {
        try await withApp(configure: configure) { app in
            let tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
            try await tester.test(.GET, "fails") { response in
                #expect(response.status == .conflict)
                #expect(ledger.tornDownIDs == [1])
            }
        }
    }

    @Test func failedTeardownTurnsSuccessIntoServerErrorAndIsLogged() async throws {
        try await withApp(configure: configure) { app in
            let tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
            try await tester.test(.GET, "commit") { response in
                #expect(response.status == .internalServerError)
                #expect(response.body.string.contains("could not be finished"))
            }
        }
        let failure = try #require(logs.errors.first { $0.message == "Ending the request's scope failed" })
        #expect(failure.metadata["weft.service"] == "FailingCommit")
        #expect(logs.errors.contains { $0.message.contains("Answering 500 instead of 200") })
    }

    @Test func routeWithoutTheMiddlewareAnswersServerErrorAndSaysWhy() async throws {
        try await withApp { app in
            app.middleware.use(CollectingLoggerMiddleware(store: logs))
            app.get("unscoped") { req async throws -> String in
                _ = try await req.require(UnitOfWork.self)
                return "resolved"
            }
            let tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
            try await tester.test(.GET, "unscoped") { response in #expect(response.status == .internalServerError) }
        }
        #expect(logs.errors.contains { $0.message.contains("no WeftScopeMiddleware runs before it") })
    }

    @Test func concurrentRequestsEachGetAndEndTheirOwnScope() async throws {
        let requests = 40
        try await withApp(configure: configure) { app in
            let base = try await app.startServing()
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<requests {
                    group.addTask { try await app.client.get(URI(string: "\(base)/work")).body.map(String.init) ?? "" }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(Set(answers).count == requests)
            #expect(answers.allSatisfy { Int($0) != nil })
            await app.server.shutdown()
        }
        #expect(ledger.made == requests)
        #expect(ledger.tornDownIDs.sorted() == Array(1...requests))
    }
}
