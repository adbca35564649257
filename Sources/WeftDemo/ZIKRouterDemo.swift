// Section: ZIKRouter's "Circular Dependency" page (seed 004). Two routers become two registrations; each
// side's initCompleted makes the other side with a preparation that hands itself over.

import Weft

/// The parent and child of the seed, which refer to each other.
enum RouterPair {
    protocol Parent: AnyObject {
        var child: (any Child)? { get set }
    }

    protocol Child: AnyObject {
        var parent: (any Parent)? { get set }
    }

    final class ParentObject: Parent {
        var child: (any Child)?
    }

    final class ChildObject: Child {
        var parent: (any Parent)?
    }

    /// The two "routers" as registrations, counting each factory call.
    static func container(counter: CallCounter) -> Container {
        let container = Container()
        container.register((any Parent).self) { _ in
            counter.record("Parent factory")
            return ParentObject()
        }
        .initCompleted { r, parent in
            // Only get the dependency when the child was not set.
            guard parent.child == nil else { return }
            parent.child = try r.require((any Child).self, preparing: { child in child.parent = parent })
        }
        container.register((any Child).self) { _ in
            counter.record("Child factory")
            return ChildObject()
        }
        .initCompleted { r, child in
            guard child.parent == nil else { return }
            child.parent = try r.require((any Parent).self, preparing: { parent in parent.child = child })
        }
        return container
    }
}

/// Runs the ZIKRouter seed scenario from both sides.
func runZIKRouterDemo() throws {
    heading("6. ZIKRouter: a caller closes the cycle with a preparation")
    say(
        "Each registration's initCompleted makes the other side with `require(_:preparing:)`; the "
            + "preparation runs on the new instance before its own initCompleted, so that side finds its "
            + "reference already set and does not look it up again."
    )

    scenario("Resolve the parent first")
    let parentCounter = CallCounter()
    let parent = try RouterPair.container(counter: parentCounter).require((any RouterPair.Parent).self)
    say("parent.child.parent is the parent: \(yesNo(parent.child?.parent === parent))")
    say("factories: \(parentCounter.summary)")

    scenario("Resolve the child first")
    let childCounter = CallCounter()
    let child = try RouterPair.container(counter: childCounter).require((any RouterPair.Child).self)
    say("child.parent.child is the child: \(yesNo(child.parent?.child === child))")
    say("factories: \(childCounter.summary)")

    // As in the seed, the pairs are reference cycles: break them.
    parent.child = nil
    child.parent = nil
}
