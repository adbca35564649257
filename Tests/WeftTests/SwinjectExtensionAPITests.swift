import Testing
import Weft

/// `_register(_:factory:name:option:)` and `_resolve(name:option:invoker:)`, the entry points that extensions
/// written for Swinject (SwinjectStoryboard and the like) build on: their factories take every argument as one
/// tuple, `(Resolver, Arg1, ...)`, and their registrations resolve through the ordinary `resolve` and `require`
/// as well as through `_resolve`.
@Suite(hangLimit) struct SwinjectExtensionAPITests {
    final class Screen {
        var title: String
        init(title: String) { self.title = title }
    }

    /// An extension's extra key component, as SwinjectStoryboard keys a registration by its storyboard.
    struct StoryboardOption: ServiceKeyOption {
        let storyboard: String
        func isEqualTo(_ another: any ServiceKeyOption) -> Bool {
            (another as? StoryboardOption)?.storyboard == storyboard
        }
        func hash(into hasher: inout Hasher) { hasher.combine(storyboard) }
        var description: String { "storyboard \(storyboard)" }
    }

    @Test func registrationWithoutArgumentsResolvesThroughRequire() throws {
        let container = Container()
        container._register(Screen.self, factory: { (_: any Resolver) in Screen(title: "home") })

        #expect(try container.require(Screen.self).title == "home")
    }

    @Test func registrationWithAnArgumentResolvesThroughRequireWithThatArgument() throws {
        let container = Container()
        container._register(
            Screen.self,
            factory: { (arguments: (any Resolver, String)) in
                Screen(title: arguments.1)
            })

        #expect(try container.require(Screen.self, argument: "settings").title == "settings")
        #expect(container.resolve(Screen.self, argument: "about")?.title == "about")
    }

    @Test func registrationWithSeveralArgumentsResolvesWithThemInOrder() throws {
        let container = Container()
        container._register(
            Screen.self,
            factory: { (arguments: (any Resolver, Int, String)) in
                Screen(title: "\(arguments.2) \(arguments.1)")
            })

        #expect(try container.require(Screen.self, arguments: 2, "page").title == "page 2")
        let swapped = #expect(throws: ResolutionError.self) { try container.require(Screen.self, arguments: "page", 2) }
        #expect(swapped?.reason == .missingRegistration)
    }

    @Test func registrationWithAnArgumentResolvesFromAsyncCode() async throws {
        let container = Container()
        container._register(
            Screen.self,
            factory: { (arguments: (any Resolver, String)) in
                Screen(title: arguments.1)
            })

        #expect(try await container.async.require(Screen.self, arguments: "async").title == "async")
    }

    @Test func underscoreResolveFindsTheRegistrationOfItsOptionWithTheArgumentsItPasses() {
        let container = Container()
        container._register(
            Screen.self,
            factory: { (arguments: (any Resolver, Screen)) in
                arguments.1.title = "prepared"
                return arguments.1
            },
            option: StoryboardOption(storyboard: "Main")
        )
        let screen = Screen(title: "new")

        let resolved: Screen? = container._resolve(name: nil, option: StoryboardOption(storyboard: "Main")) {
            (factory: ((any Resolver, Screen)) -> Any) in factory((container, screen))
        }
        let otherStoryboard: Screen? = container._resolve(name: nil, option: StoryboardOption(storyboard: "Other")) {
            (factory: ((any Resolver, Screen)) -> Any) in factory((container, screen))
        }

        #expect(resolved === screen)
        #expect(screen.title == "prepared")
        #expect(otherStoryboard == nil)
        #expect(container.resolve(Screen.self, argument: screen) == nil)
    }

    @Test func underscoreResolveWithOtherArgumentTypesFindsNothing() {
        let container = Container()
        container._register(
            Screen.self,
            factory: { (arguments: (any Resolver, String)) in
                Screen(title: arguments.1)
            })

        let resolved: Screen? = container._resolve(name: nil) { (factory: ((any Resolver, Int)) -> Any) in
            factory((container, 1))
        }

        #expect(resolved == nil)
    }

    @Test func scopeOfAnUnderscoreRegistrationKeepsItsInstance() throws {
        let container = Container()
        container._register(
            Screen.self,
            factory: { (arguments: (any Resolver, String)) in
                Screen(title: arguments.1)
            }
        ).inObjectScope(.container)

        let first = try container.require(Screen.self, argument: "first")
        let second = try container.require(Screen.self, argument: "second")

        #expect(first === second)
        #expect(second.title == "first")
    }
}
