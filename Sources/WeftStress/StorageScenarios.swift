import Foundation
import Weft

/// Custom scopes' storages, which are user code: Weft calls one storage from one thread at a time (it need not be
/// thread-safe) with none of its own locks held (it may use the container), while threads and tasks resolve and
/// the scope is reset under them.
enum StorageScenarios {
    final class Widget: Sendable {}
    final class Gadget: Sendable {}
    final class Helper: Sendable {}

    /// A storage that is not thread-safe and notes when two threads are inside it at once; its reads use the
    /// container, as a storage that logs or consults other services would.
    final class CheckedStorage: InstanceStorage, @unchecked Sendable {
        private let inside = Tally()
        private let tally: Tally
        weak var container: Container?
        private var kept: Any?

        init(tally: Tally) { self.tally = tally }

        var instance: Any? {
            get { entered { kept } }
            set { entered { kept = newValue } }
        }

        func instance(inGraph _: GraphIdentifier) -> Any? {
            entered {
                if let container {
                    if tally.add("reads") % 7 == 0 { _ = container.description }
                    _ = container.resolve(Helper.self)
                }
                return kept
            }
        }

        private func entered<T>(_ body: () -> T) -> T {
            if inside.add("inside") > 1 { tally.add("overlaps") }
            defer { inside.add("inside", -1) }
            return body()
        }
    }

    static let all: [Scenario] = [customStorageUnderLoad]

    static let customStorageUnderLoad = Scenario(
        name: "custom-storage",
        summary: "threads and tasks resolve services of a custom scope whose storage is not thread-safe and uses "
            + "the container, while the scope is reset: no two calls overlap in a storage, nothing hangs, and "
            + "once quiet every resolver shares one instance per service"
    ) { context in
        while context.hasTime {
            let tally = Tally()
            let container = Container()
            let storages = Collected<CheckedStorage>()
            let scope = ObjectScope(
                storageFactory: {
                    let storage = CheckedStorage(tally: tally)
                    storage.container = container
                    storages.append(storage)
                    return storage
                },
                description: "checked")
            let delay = UInt32(context.random.below(100))
            container.register(Helper.self) { _ in Helper() }.inObjectScope(.container)
            container.register(Widget.self) { r in
                _ = r.resolve(Helper.self)
                if delay > 0 { usleep(delay) }
                return Widget()
            }
            .inObjectScope(scope)
            container.register(Gadget.self) { (_: AsyncResolver) async in
                if delay > 0 { try? await Task.sleep(nanoseconds: UInt64(delay) * 1_000) }
                return Gadget()
            }
            .inObjectScope(scope)

            let resets = 5 + context.random.below(15)
            let finished = onThreads(5, within: 30) { thread in
                switch thread {
                case 0:
                    for _ in 0..<resets {
                        usleep(delay + 20)
                        container.resetObjectScope(scope)
                    }
                case 1:
                    for _ in 0..<20 {
                        let done = DispatchSemaphore(value: 0)
                        Task.detached {
                            _ = try? await container.async.require(Gadget.self)
                            done.signal()
                        }
                        done.wait()
                    }
                default:
                    for _ in 0..<50 { _ = container.resolve(Widget.self) }
                }
            }
            context.check(finished, "custom-storage threads did not finish (a storage call deadlocked?)")

            // Quiet now: every resolver of each service must share the one instance kept after the last reset.
            let widgets = Collected<ObjectIdentifier>()
            let gadgets = Collected<ObjectIdentifier>()
            let quiet = onThreads(4, within: 30) { _ in
                if let widget = container.resolve(Widget.self) { widgets.append(ObjectIdentifier(widget)) }
                let done = DispatchSemaphore(value: 0)
                Task.detached {
                    if let gadget = try? await container.async.require(Gadget.self) {
                        gadgets.append(ObjectIdentifier(gadget))
                    }
                    done.signal()
                }
                done.wait()
            }
            context.check(quiet, "custom-storage quiet resolves did not finish")
            context.check(
                widgets.values.count == 4 && Set(widgets.values).count == 1,
                "quiet Widget resolves gave \(Set(widgets.values).count) instances for \(widgets.values.count)")
            context.check(
                gadgets.values.count == 4 && Set(gadgets.values).count == 1,
                "quiet Gadget resolves gave \(Set(gadgets.values).count) instances for \(gadgets.values.count)")
            context.check(tally.count("overlaps") == 0, "\(tally.count("overlaps")) overlapping storage calls")
            context.iterations += 1
        }
    }
}
