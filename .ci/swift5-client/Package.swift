// swift-tools-version: 5.10
// A client in Swift 5 language mode with minimal concurrency checking, as many apps still are: Weft's everyday API
// must compile for it without errors. CI builds it (.ci/run); it is not a product of Weft.
import PackageDescription

let package = Package(
    name: "Swift5Client",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6)],
    dependencies: [.package(name: "Weft", path: "../..")],
    targets: [
        .executableTarget(
            name: "Client",
            dependencies: [.product(name: "Weft", package: "Weft")]
        )
    ]
)
