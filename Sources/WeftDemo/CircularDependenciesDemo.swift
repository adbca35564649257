// Section 2: the supported circular dependencies of Swinject's "Circular Dependencies" page.
//
// The three scenarios use classes named Parent and Child of different shapes, so each scenario keeps
// its types in its own namespace.

import Weft

/// Parent takes its child in the initializer; Child gets its parent through a weak property.
enum InitializerPropertyCycle {
    protocol ParentProtocol: AnyObject {}
    protocol ChildProtocol: AnyObject {}

    final class Parent: ParentProtocol {
        let child: (any ChildProtocol)?

        init(child: (any ChildProtocol)?) {
            self.child = child
        }
    }

    final class Child: ChildProtocol {
        weak var parent: (any ParentProtocol)?
    }
}

/// Both sides get the other through a property; the child's back-reference is weak.
enum PropertyPropertyCycle {
    protocol ParentProtocol: AnyObject {}
    protocol ChildProtocol: AnyObject {}

    final class Parent: ParentProtocol {
        var child: (any ChildProtocol)?
    }

    final class Child: ChildProtocol {
        weak var parent: (any ParentProtocol)?
    }
}

/// Runs the three supported cycles, counting factory calls in each.
func runCircularDependenciesDemo() throws {
    heading("2. Circular dependencies that work: Parent <-> Child")
    say(
        "Parent holds its Child strongly; Child points back to its Parent weakly, so nothing leaks. "
            + "Weft runs initCompleted callbacks only after every factory of the object graph has returned, "
            + "so the Parent a callback asks for is already built and shared: no factory runs twice. "
            + "(Swinject runs a callback as soon as its own factory returns, and may run the Parent factory twice.)"
    )
    try initializerProperty()
    try propertyProperty()
    try bothInInitCompleted()
}

private func initializerProperty() throws {
    typealias ParentProtocol = InitializerPropertyCycle.ParentProtocol
    typealias ChildProtocol = InitializerPropertyCycle.ChildProtocol
    typealias Parent = InitializerPropertyCycle.Parent
    typealias Child = InitializerPropertyCycle.Child

    let calls = CallCounter()
    let container = Container()
    container.register(ParentProtocol.self) { r in
        calls.record("Parent factory")
        return Parent(child: try r.require(ChildProtocol.self))
    }
    container.register(ChildProtocol.self) { _ in
        calls.record("Child factory")
        return Child()
    }
    .initCompleted { r, child in
        calls.record("Child initCompleted")
        (child as? Child)?.parent = r.resolve(ParentProtocol.self)
    }

    scenario("Initializer/property: Parent(child:), Child.parent set in initCompleted")
    say("Parent's factory needs a Child; Child's initCompleted asks for the Parent that is being built.")
    let parent = try container.require(ParentProtocol.self)
    let child = (parent as? Parent)?.child as? Child
    report(parent: parent, childsParent: child?.parent, calls: calls)
}

private func propertyProperty() throws {
    typealias ParentProtocol = PropertyPropertyCycle.ParentProtocol
    typealias ChildProtocol = PropertyPropertyCycle.ChildProtocol
    typealias Parent = PropertyPropertyCycle.Parent
    typealias Child = PropertyPropertyCycle.Child

    let calls = CallCounter()
    let container = Container()
    container.register(ParentProtocol.self) { r in
        calls.record("Parent factory")
        let parent = Parent()
        parent.child = try r.require(ChildProtocol.self)
        return parent
    }
    container.register(ChildProtocol.self) { _ in
        calls.record("Child factory")
        return Child()
    }
    .initCompleted { r, child in
        calls.record("Child initCompleted")
        (child as? Child)?.parent = r.resolve(ParentProtocol.self)
    }

    scenario("Property/property: Parent.child set in the factory, Child.parent in initCompleted")
    say("Parent's factory sets parent.child before returning; Child's initCompleted sets child.parent.")
    let parent = try container.require(ParentProtocol.self)
    let child = (parent as? Parent)?.child as? Child
    report(parent: parent, childsParent: child?.parent, calls: calls)
}

private func bothInInitCompleted() throws {
    typealias ParentProtocol = PropertyPropertyCycle.ParentProtocol
    typealias ChildProtocol = PropertyPropertyCycle.ChildProtocol
    typealias Parent = PropertyPropertyCycle.Parent
    typealias Child = PropertyPropertyCycle.Child

    let calls = CallCounter()
    let container = Container()
    container.register(ParentProtocol.self) { _ in
        calls.record("Parent factory")
        return Parent()
    }
    .initCompleted { r, parent in
        calls.record("Parent initCompleted")
        (parent as? Parent)?.child = try r.require(ChildProtocol.self)
    }
    container.register(ChildProtocol.self) { _ in
        calls.record("Child factory")
        return Child()
    }
    .initCompleted { r, child in
        calls.record("Child initCompleted")
        (child as? Child)?.parent = r.resolve(ParentProtocol.self)
    }

    scenario("The \"Remark\" refactoring: both references set in initCompleted")
    say(
        "Both factories just call an initializer; both links are set in initCompleted. Swinject recommends "
            + "this to avoid a second factory call; in Weft it is a matter of style, the counts are the same."
    )
    let parent = try container.require(ParentProtocol.self)
    let child = (parent as? Parent)?.child as? Child
    report(parent: parent, childsParent: child?.parent, calls: calls)
}

/// Prints whether the child points back to the very parent `require` returned, and the call counts.
private func report(parent: AnyObject, childsParent: AnyObject?, calls: CallCounter) {
    let same = yesNo(childsParent === parent)
    say("Result: child.parent === the Parent that require returned: \(same).")
    say("Runs: \(calls.summary).")
}
