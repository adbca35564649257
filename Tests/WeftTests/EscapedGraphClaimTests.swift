import Dispatch
import Foundation
import Testing
import Weft

/// A graph-scoped service of a graph that can be named from outside is made once in that graph, whatever another
/// graph is making at the same time: threads of one graph wait for that graph's builder, not for another graph's.
@Suite(hangLimit) struct EscapedGraphClaimTests {
    final class Engine: Sendable {
        let graph: String
        init(graph: String) { self.graph = graph }
    }

    /// A container whose `.graph` Engine blocks in graph A's build until `releaseA`, and whose first build in graph B
    /// waits (a while at most) for a second build in B to start, which happens only if B's threads do not wait for
    /// each other.
    struct Setup {
        let container = Container()
        let graphA = GraphIdentifier()
        let graphB = GraphIdentifier()
        let aEntered = DispatchSemaphore(value: 0)
        let releaseA = DispatchSemaphore(value: 0)
        let secondInB = DispatchSemaphore(value: 0)
        let buildsInB = Counter()

        init() {
            let (graphA, aEntered, releaseA) = (graphA, aEntered, releaseA)
            let (secondInB, buildsInB) = (secondInB, buildsInB)
            container.register(Engine.self) { r in
                if try r.require(GraphIdentifier.self) == graphA {
                    aEntered.signal()
                    releaseA.wait()
                    return Engine(graph: "A")
                }
                if buildsInB.increment() == 1 {
                    _ = secondInB.wait(timeout: .now() + 1)
                } else {
                    secondInB.signal()
                }
                return Engine(graph: "B")
            }
            .inObjectScope(.graph)
        }
    }

    @Test func twoThreadsOfOneGraphGetOneInstanceWhileAnotherGraphHoldsTheBuild() throws {
        let setup = Setup()
        let container = setup.container
        let (graphA, graphB) = (setup.graphA, setup.graphB)
        let inA = Collected<Engine>()
        let builderA = runOnThread {
            if let engine = try? container.withObjectGraph(graphA, closure: { try $0.require(Engine.self) }) {
                inA.append(engine)
            }
        }
        #expect(setup.aEntered.wait(timeout: .now() + 10) == .success)

        let inB = Collected<Engine>()
        let barrier = StartBarrier(count: 2)
        let threadsB = (0..<2).map { _ in
            runOnThread {
                _ = barrier.arriveAndWait()
                if let engine = try? container.withObjectGraph(graphB, closure: { try $0.require(Engine.self) }) {
                    inB.append(engine)
                }
            }
        }
        for thread in threadsB { #expect(thread.wait(seconds: 20)) }
        setup.releaseA.signal()
        #expect(builderA.wait(seconds: 20))

        #expect(setup.buildsInB.value == 1)
        #expect(inB.values.count == 2)
        #expect(inB.values.first === inB.values.last)
        #expect(inA.values.count == 1)
        #expect(inA.values.first?.graph == "A")
    }

    final class Hub: Sendable {
        let engine: Engine
        init(engine: Engine) { self.engine = engine }
    }

    /// A `.graph` Engine whose build in graph A blocks until A is released and whose build in graph B, once
    /// released, needs the `.container` Hub, whose factory needs an Engine: after ``holdGraphClaimOfB()``, graph A's
    /// build has ended and only graph B's per-graph claim holds the Engine.
    struct HubSetup {
        let container = Container()
        let entry: ServiceEntry<Engine>
        let graphA = GraphIdentifier()
        let graphB = GraphIdentifier()
        let aEntered = DispatchSemaphore(value: 0)
        let releaseA = DispatchSemaphore(value: 0)
        let bEntered = DispatchSemaphore(value: 0)
        let releaseB = DispatchSemaphore(value: 0)

        init() {
            let (graphA, graphB, aEntered, releaseA) = (graphA, graphB, aEntered, releaseA)
            let (bEntered, releaseB) = (bEntered, releaseB)
            entry = container.register(Engine.self) { r in
                let graph = try r.require(GraphIdentifier.self)
                if graph == graphA {
                    aEntered.signal()
                    releaseA.wait()
                    return Engine(graph: "A")
                }
                if graph == graphB {
                    bEntered.signal()
                    releaseB.wait()
                    _ = try r.require(Hub.self)
                    return Engine(graph: "B")
                }
                return Engine(graph: "other")
            }
            container.register(Hub.self) { r in Hub(engine: try r.require(Engine.self)) }.inObjectScope(.container)
        }

        /// Builds in graph A, then in graph B while A holds the claim, then lets A finish; returns B's thread.
        func holdGraphClaimOfB() -> RunningThread {
            let (container, graphA, graphB) = (container, graphA, graphB)
            let inA = runOnThread { _ = try? container.withObjectGraph(graphA) { try $0.require(Engine.self) } }
            #expect(aEntered.wait(timeout: .now() + 10) == .success)
            let inB = runOnThread { _ = try? container.withObjectGraph(graphB) { try $0.require(Engine.self) } }
            #expect(bEntered.wait(timeout: .now() + 10) == .success)
            releaseA.signal()
            #expect(inA.wait(seconds: 20))
            return inB
        }
    }

    /// The scope of a registration set after `register` (`inObjectScope`) while graphs still build it as `.graph`:
    /// a request of the new scope claims it as that scope's, rather than finding a build it cannot wait for and
    /// asking again forever (here while graph B's build waits for that request's `Hub`).
    @Test func aRegistrationWhoseScopeChangesWhileGraphsBuildItIsClaimedAsItsNewScope() throws {
        let setup = HubSetup()
        let container = setup.container
        let inB = setup.holdGraphClaimOfB()

        setup.entry.inObjectScope(.container)
        let hubs = Collected<Hub>()
        let asker = runOnThread { if let hub = try? container.require(Hub.self) { hubs.append(hub) } }
        Thread.sleep(forTimeInterval: 0.1)
        setup.releaseB.signal()

        #expect(asker.wait(seconds: 20), "the request of the new scope never finished")
        #expect(inB.wait(seconds: 20))
        #expect(hubs.values.first?.engine.graph == "other")
    }

    /// A synchronized resolver (`synchronize()`) asking for a graph-scoped service that only other graphs build at
    /// the moment claims its own graph's build, as any other resolve does, rather than asking again forever.
    @Test func aSynchronizedRequestWhileOnlyOtherGraphsBuildClaimsItsOwnGraphsBuild() throws {
        let setup = HubSetup()
        let inB = setup.holdGraphClaimOfB()

        let synchronized = setup.container.synchronize()
        let hubs = Collected<Hub>()
        let asker = runOnThread { if let hub = try? synchronized.require(Hub.self) { hubs.append(hub) } }
        Thread.sleep(forTimeInterval: 0.1)
        setup.releaseB.signal()

        #expect(asker.wait(seconds: 20), "the synchronized request never finished")
        #expect(inB.wait(seconds: 20))
        #expect(hubs.values.first?.engine.graph == "other")
    }
}
