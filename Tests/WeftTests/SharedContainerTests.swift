import Dispatch
import Foundation
import Testing
import Weft

/// `Container.shared`, the default container, and `Container.withShared`, its task-local override.
@Suite struct SharedContainerTests {
    final class Clock {
        let label: String
        init(_ label: String) {
            self.label = label
        }
    }

    enum Stop: Error {
        case requested
    }

    /// A container whose `Clock` is labelled `label`.
    private func container(labelled label: String) -> Container {
        let container = Container()
        container.register(Clock.self) { _ in Clock(label) }
        return container
    }

    @Test func sharedIsOneContainerOutsideAnyOverride() async {
        // A private type under a name of its own: registering it into the process-wide container disturbs no
        // other test.
        final class Marker: Sendable {}
        let name = "SharedContainerTests \(UInt64.random(in: 0...UInt64.max))"
        Container.shared.register(Marker.self, name: name) { _ in Marker() }.inObjectScope(.container)
        let here = Container.shared.resolve(Marker.self, name: name)
        let onThread = Collected<Marker?>()
        #expect(runOnThread { onThread.append(Container.shared.resolve(Marker.self, name: name)) }.wait(seconds: 10))
        let inDetachedTask = await Task.detached { Container.shared.resolve(Marker.self, name: name) }.value

        #expect(here != nil, "a registration made through Container.shared was not resolved through it")
        #expect(onThread.values.first.flatMap { $0 } === here)
        #expect(inDetachedTask === here)
    }

    @Test func withSharedMakesSharedReturnTheGivenContainerThenRestoresIt() {
        let outside = Container.shared
        let mine = container(labelled: "mine")

        let label = Container.withShared(mine) {
            #expect(Container.shared === mine)
            return Container.shared.resolve(Clock.self)?.label
        }

        #expect(label == "mine")
        #expect(Container.shared === outside)
    }

    @Test func innermostOverrideWins() {
        let outer = container(labelled: "outer")
        let inner = container(labelled: "inner")

        Container.withShared(outer) {
            Container.withShared(inner) {
                #expect(Container.shared.resolve(Clock.self)?.label == "inner")
            }
            #expect(Container.shared.resolve(Clock.self)?.label == "outer")
        }
    }

    @Test func overrideEndsWhenTheOperationThrows() {
        let outside = Container.shared
        let mine = container(labelled: "mine")

        #expect(throws: Stop.requested) {
            try Container.withShared(mine) { throw Stop.requested }
        }
        #expect(Container.shared === outside)
    }

    @Test func asyncOverrideReachesChildTasksAndUnstructuredTasks() async {
        let mine = container(labelled: "mine")

        let labels = await Container.withShared(mine) {
            async let fromAsyncLet = Container.shared.resolve(Clock.self)?.label
            let fromGroup = await withTaskGroup(of: String?.self) { group in
                group.addTask { Container.shared.resolve(Clock.self)?.label }
                return await group.next() ?? nil
            }
            let fromTask = await Task { Container.shared.resolve(Clock.self)?.label }.value
            return [await fromAsyncLet, fromGroup, fromTask]
        }

        #expect(labels == ["mine", "mine", "mine"])
    }

    @Test func detachedTasksSeeTheProcessWideContainer() async {
        let outside = Container.shared
        let mine = container(labelled: "mine")

        let seen = await Container.withShared(mine) {
            await Task.detached { Container.shared }.value
        }

        #expect(seen === outside)
        #expect(seen !== mine)
    }

    @Test func otherThreadsSeeTheProcessWideContainer() {
        let outside = Container.shared
        let mine = container(labelled: "mine")
        let seen = Collected<ObjectIdentifier>()

        Container.withShared(mine) {
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                seen.append(ObjectIdentifier(Container.shared))
                done.signal()
            }
            done.wait()
            let thread = runOnThread { seen.append(ObjectIdentifier(Container.shared)) }
            #expect(thread.wait(seconds: 10))
        }

        #expect(seen.values == [ObjectIdentifier(outside), ObjectIdentifier(outside)])
    }

    @Test func factoriesRunInsideAnOverrideResolveFromIt() throws {
        final class Alarm {
            let clock: Clock
            init() throws {
                clock = try Container.shared.require(Clock.self)
            }
        }
        let outer = Container()
        outer.register(Alarm.self) { _ in try Alarm() }
        let mine = container(labelled: "mine")

        let alarm = try Container.withShared(mine) { try outer.require(Alarm.self) }

        #expect(alarm.clock.label == "mine")
    }
}
