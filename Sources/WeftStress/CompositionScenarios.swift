import Foundation
import Weft

/// Collections and decorators while what they are made of changes: threads resolve a list (with `.container` and
/// `.transient` elements) and a decorated service, in a container and in its children, while other threads
/// contribute, replace elements by id, declare decorators and make decorating children.
enum CompositionScenarios {
    /// An element of the list: who contributed it, and its place among that contributor's elements.
    final class Element: @unchecked Sendable {
        let source: String
        let index: Int
        init(_ source: String, _ index: Int) { (self.source, self.index) = (source, index) }
    }

    /// A service whose decorators each append their tag.
    final class Service: @unchecked Sendable {
        let trail: [String]
        init(_ trail: [String]) { self.trail = trail }
    }

    /// The one instance every list of a round must hold first.
    final class Kept: @unchecked Sendable {
        private let lock = NSLock()
        private var first: Element?

        /// Whether `element` is the instance seen first.
        func isTheOne(_ element: Element) -> Bool {
            lock.withLock {
                if first == nil { first = element }
                return first === element
            }
        }
    }

    static let all: [Scenario] = [collectionsAndDecorators]

    static let contributors = ["c0", "c1"]
    static let replaceable = ["swap0", "swap1", "swap2"]
    static let contributionsPerRound = 150
    static let decoratorsPerRound = 12

    static let collectionsAndDecorators = Scenario(
        name: "collections-decorators",
        summary: "7 threads resolve a list of .container and .transient elements and a decorated service (here and "
            + "in children that decorate and contribute) while others contribute, replace elements by id and "
            + "decorate: the .container element is one instance, each answer is complete and in order for what "
            + "was added before the resolve began"
    ) { context in
        while context.hasTime {
            let root = Container()
            root.contribute(to: [Element].self) { _ in Element("kept", 0) }.inObjectScope(.container)
            for id in replaceable {
                root.contribute(to: [Element].self, id: id) { _ in Element(id, 0) }.inObjectScope(.transient)
            }
            root.register(Service.self) { _ in Service(["base"]) }.inObjectScope(.container)
            root.decorate(Service.self) { _, inner in Service(inner.trail + ["root"]) }
            let published = Tally()
            let broken = Tally()
            let kept = Kept()
            var seeds: [SeededRandom] = []
            for _ in 0..<7 { seeds.append(context.random.split()) }
            let plans = seeds
            let finished = onThreads(7) { thread in
                var random = plans[thread]
                switch thread {
                case 0, 1:
                    let source = contributors[thread]
                    for index in 0..<contributionsPerRound {
                        let scope: ObjectScope = random.below(2) == 0 ? .container : .transient
                        root.contribute(to: [Element].self) { _ in Element(source, index) }.inObjectScope(scope)
                        published.add(source)
                    }
                    published.add("done")
                case 2:
                    var declared = 0
                    for round in 0..<contributionsPerRound {
                        let id = replaceable[random.below(replaceable.count)]
                        let scope: ObjectScope = random.below(2) == 0 ? .container : .transient
                        root.contribute(to: [Element].self, id: id) { _ in Element(id, round + 1) }
                            .inObjectScope(scope)
                        if round % 10 == 0, declared < decoratorsPerRound {
                            let tag = "d\(declared)"
                            root.decorate(Service.self) { _, inner in Service(inner.trail + [tag]) }
                            declared += 1
                            published.add("decorators")
                        }
                    }
                    published.add("done")
                case 3, 4, 5:
                    while published.count("done") < 3 {
                        check(root, child: false, published: published, kept: kept, broken: broken)
                    }
                default:
                    while published.count("done") < 3 {
                        let child = Container(parent: root)
                        child.decorate(Service.self) { _, inner in Service(inner.trail + ["child"]) }
                        child.contribute(to: [Element].self) { _ in Element("child", 0) }.inObjectScope(.transient)
                        for _ in 0..<3 { check(child, child: true, published: published, kept: kept, broken: broken) }
                    }
                }
            }
            context.check(finished, "threads did not finish")
            // Once everything is added: the answer holds all of it.
            check(root, child: false, published: published, kept: kept, broken: broken)
            for note in broken.noted { context.violation(note) }
            context.iterations += 1
        }
    }

    /// Resolves the list and the decorated service from `container` (a decorating, contributing child of the
    /// round's root when `child`) and notes in `broken` what they lack or hold out of order.
    static func check(_ container: Container, child: Bool, published: Tally, kept: Kept, broken: Tally) {
        // What was added before the resolves begin: each answer must hold at least that much.
        let before = contributors.map { published.count($0) }
        let decoratorsBefore = published.count("decorators")
        do {
            let list = try container.require([Element].self)
            var rest = list[...]
            guard let first = rest.popFirst(), first.source == "kept", kept.isTheOne(first) else {
                broken.note("the list does not start with the one .container element: \(describe(list))")
                return
            }
            for id in replaceable where rest.popFirst()?.source != id {
                broken.note("the replaceable elements are not in place: \(describe(list))")
                return
            }
            if child, rest.popLast()?.source != "child" {
                broken.note("a child's list does not end with its own element: \(describe(list))")
                return
            }
            for (source, count) in zip(contributors, before) {
                let indices = rest.filter { $0.source == source }.map(\.index)
                if indices != Array(0..<indices.count) || indices.count < count {
                    broken.note("\(source)'s elements \(indices.count) of at least \(count), not in order")
                }
            }
            if rest.contains(where: { !contributors.contains($0.source) }) {
                broken.note("the list holds an element twice or one from elsewhere: \(describe(list))")
            }
            let trail = try container.require(Service.self).trail
            let declared = Array(trail.dropFirst(2).dropLast(child ? 1 : 0))
            if trail.prefix(2) != ["base", "root"] || (child && trail.last != "child")
                || declared != (0..<declared.count).map({ "d\($0)" }) || declared.count < decoratorsBefore
            {
                broken.note("decorated \(trail), with at least \(decoratorsBefore) decorators declared before")
            }
        } catch {
            broken.note("a resolve failed: \(reason(of: error)) \(error)")
        }
    }

    static func describe(_ list: [Element]) -> String {
        list.prefix(8).map { "\($0.source)#\($0.index)" }.joined(separator: ", ") + (list.count > 8 ? ", ..." : "")
    }
}
