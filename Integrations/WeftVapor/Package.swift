// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "WeftVapor",
    platforms: [
        // Vapor 4 needs macOS 10.15; its async testing support needs macOS 13.
        .macOS(.v13)
    ],
    products: [
        .library(name: "WeftVapor", targets: ["WeftVapor"])
    ],
    dependencies: [
        .package(name: "Weft", path: "../.."),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: [
        .target(
            name: "WeftVapor",
            dependencies: [
                .product(name: "Weft", package: "Weft"),
                .product(name: "Vapor", package: "vapor"),
            ]
        ),
        .testTarget(
            name: "WeftVaporTests",
            dependencies: [
                "WeftVapor",
                .product(name: "Weft", package: "Weft"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "VaporTesting", package: "vapor"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
