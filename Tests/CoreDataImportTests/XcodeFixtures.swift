import CoreDataImport
import Foundation

/// Hand-written `contents` files in the form Xcode writes them.
enum XcodeFixtures {
    static func header(_ identifier: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="21754" \
        systemVersion="22G120" minimumToolsVersion="Automatic" sourceLanguage="Swift" \
        userDefinedModelVersionIdentifier="\(identifier)">

        """
    }

    /// The model of CoreDataPlus's SampleModel version 1, written out by hand: Apple's
    /// store of it holds Car 9e555529… and Person 16426855….
    static let sampleV1 =
        header("1") + """
                <entity name="Car" representedClassName="Car" syncable="YES">
                    <attribute name="color" optional="YES" attributeType="Transformable" \
            valueTransformerName="ColorTransformer" customClassName="Color"/>
                    <attribute name="currentDrivingSpeed" optional="YES" transient="YES" attributeType="Integer 64" \
            defaultValueString="0" usesScalarValueType="YES"/>
                    <attribute name="maker" optional="YES" attributeType="String"/>
                    <attribute name="markedForDeletionAsOf" optional="YES" attributeType="Date" \
            usesScalarValueType="NO"/>
                    <attribute name="model" optional="YES" attributeType="String"/>
                    <attribute name="numberPlate" attributeType="String"/>
                    <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" \
            destinationEntity="Person" inverseName="cars" inverseEntity="Person"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint>
                            <constraint value="numberPlate"/>
                        </uniquenessConstraint>
                    </uniquenessConstraints>
                </entity>
                <entity name="ExpensiveSportCar" representedClassName="ExpensiveSportCar" parentEntity="SportCar" \
            syncable="YES">
                    <attribute name="isLimitedEdition" optional="YES" attributeType="Boolean" defaultValueString="NO" \
            usesScalarValueType="YES"/>
                </entity>
                <entity name="Person" representedClassName="Person" syncable="YES">
                    <attribute name="firstName" optional="YES" attributeType="String"/>
                    <attribute name="id" attributeType="UUID" usesScalarValueType="NO" preserveAfterDeletion="YES"/>
                    <attribute name="isDriving" transient="YES" attributeType="Boolean" defaultValueString="NO" \
            usesScalarValueType="YES"/>
                    <attribute name="lastName" optional="YES" attributeType="String"/>
                    <attribute name="updatedAt" attributeType="Date" usesScalarValueType="NO"/>
                    <relationship name="cars" optional="YES" toMany="YES" deletionRule="Nullify" \
            destinationEntity="Car" inverseName="owner" inverseEntity="Car"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint>
                            <constraint value="firstName"/>
                            <constraint value="lastName"/>
                        </uniquenessConstraint>
                    </uniquenessConstraints>
                </entity>
                <entity name="SportCar" representedClassName="SportCar" parentEntity="Car" syncable="YES"/>
            </model>
            """

    /// Library version 1: every attribute type and flag, an abstract parent with two
    /// children, an ordered to-many, a many-to-many, a uniqueness constraint, a fetch
    /// index, and what the format has no place for.
    static let libraryV1 =
        header("2024.1") + """
                <entity name="Author" representedClassName="Author" codeGenerationType="class" syncable="YES">
                    <attribute name="name" attributeType="String" defaultValueString="Anonymous &quot;A&quot;"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Cascade" \
            destinationEntity="Item" inverseName="author" inverseEntity="Item"/>
                    <fetchedProperty name="recentItems" optional="YES">
                        <fetchRequest name="fetchedPropertyFetchRequest" entity="Item" predicateString="added &gt; \
            $FETCH_SOURCE.since"/>
                    </fetchedProperty>
                </entity>
                <entity name="Book" representedClassName="Book" parentEntity="Item" syncable="YES">
                    <attribute name="pages" attributeType="Integer 32" defaultValueString="1" minValueString="1" \
            maxValueString="5000" usesScalarValueType="YES"/>
                    <relationship name="chapters" toMany="YES" ordered="YES" minCount="1" maxCount="50" \
            deletionRule="Deny" destinationEntity="Chapter" inverseName="book" inverseEntity="Chapter"/>
                </entity>
                <entity name="Chapter" representedClassName="Chapter" syncable="YES">
                    <attribute name="heading" attributeType="String" minValueString="1" maxValueString="200"/>
                    <relationship name="book" optional="YES" maxCount="1" deletionRule="No Action" \
            destinationEntity="Book" inverseName="chapters" inverseEntity="Book"/>
                </entity>
                <entity name="Item" representedClassName="Item" isAbstract="YES" versionHashModifier="v2-layout" \
            syncable="YES">
                    <attribute name="added" attributeType="Date" defaultDateTimeInterval="694224000.5" indexed="YES" \
            usesScalarValueType="NO"/>
                    <attribute name="available" attributeType="Boolean" defaultValueString="YES" \
            usesScalarValueType="YES"/>
                    <attribute name="code" optional="YES" attributeType="UUID" defaultValueString="" \
            usesScalarValueType="NO"/>
                    <attribute name="cover" optional="YES" attributeType="Binary" \
            allowsExternalBinaryDataStorage="YES"/>
                    <attribute name="editions" attributeType="Integer 16" defaultValueString="0" minValueString="0" \
            maxValueString="100" usesScalarValueType="YES"/>
                    <attribute name="homepage" optional="YES" attributeType="URI"/>
                    <attribute name="palette" optional="YES" attributeType="Transformable" \
            valueTransformerName="NSSecureUnarchiveFromData"/>
                    <attribute name="price" attributeType="Decimal" defaultValueString="9.99"/>
                    <attribute name="rating" attributeType="Float" defaultValueString="2.5" usesScalarValueType="YES"/>
                    <attribute name="scratch" optional="YES" transient="YES" attributeType="Undefined"/>
                    <attribute name="serial" attributeType="Integer 64" defaultValueString="-42" \
            versionHashModifier="wide" preserveAfterDeletion="YES" usesScalarValueType="YES"/>
                    <attribute name="title" attributeType="String">
                        <userInfo>
                            <entry key="searchable" value="YES"/>
                        </userInfo>
                    </attribute>
                    <attribute name="views" attributeType="Integer 32" defaultValueString="0" \
            usesScalarValueType="YES"/>
                    <attribute name="weight" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                    <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" \
            destinationEntity="Author" inverseName="items" inverseEntity="Author"/>
                    <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" \
            destinationEntity="Tag" inverseName="items" versionHashModifier="m2m" inverseEntity="Tag"/>
                    <fetchIndex name="byTitleAndAdded">
                        <fetchIndexElement property="title" type="Binary" order="ascending"/>
                        <fetchIndexElement property="added" type="Binary" order="descending"/>
                    </fetchIndex>
                </entity>
                <entity name="Magazine" representedClassName="Magazine" parentEntity="Item" syncable="YES">
                    <attribute name="issue" attributeType="Integer 16" defaultValueString="1" \
            usesScalarValueType="YES"/>
                </entity>
                <entity name="Tag" representedClassName="Tag" syncable="YES">
                    <attribute name="label" attributeType="String"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" \
            destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint>
                            <constraint value="label"/>
                        </uniquenessConstraint>
                    </uniquenessConstraints>
                    <userInfo>
                        <entry key="color" value="red"/>
                    </userInfo>
                </entity>
                <fetchRequest name="AllBooks" entity="Book"/>
                <configuration name="Cloud" usedWithCloudKit="YES">
                    <memberEntity name="Author"/>
                    <memberEntity name="Tag"/>
                </configuration>
                <elements>
                    <element name="Author" positionX="-63" positionY="-18" width="128" height="74"/>
                </elements>
            </model>
            """

    /// Version 2: Chapter.heading → caption, Tag → Label (the older
    /// `renamingIdentifier`), Item.tags → labels; a new optional attribute.
    static let libraryV2 =
        header("2024.2") + """
                <entity name="Author" representedClassName="Author" syncable="YES">
                    <attribute name="name" attributeType="String" defaultValueString="Anonymous"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Cascade" \
            destinationEntity="Item" inverseName="author" inverseEntity="Item"/>
                </entity>
                <entity name="Book" parentEntity="Item" syncable="YES">
                    <attribute name="pages" attributeType="Integer 32" defaultValueString="1" \
            usesScalarValueType="YES"/>
                    <relationship name="chapters" toMany="YES" ordered="YES" deletionRule="Deny" \
            destinationEntity="Chapter" inverseName="book" inverseEntity="Chapter"/>
                </entity>
                <entity name="Chapter" syncable="YES">
                    <attribute name="caption" attributeType="String" elementID="heading"/>
                    <attribute name="summary" optional="YES" attributeType="String"/>
                    <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" \
            destinationEntity="Book" inverseName="chapters" inverseEntity="Book"/>
                </entity>
                <entity name="Item" isAbstract="YES" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" \
            destinationEntity="Author" inverseName="items" inverseEntity="Author"/>
                    <relationship name="labels" optional="YES" toMany="YES" deletionRule="Nullify" \
            destinationEntity="Label" inverseName="items" inverseEntity="Label" renamingIdentifier="tags"/>
                </entity>
                <entity name="Label" renamingIdentifier="Tag" syncable="YES">
                    <attribute name="label" attributeType="String"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" \
            destinationEntity="Item" inverseName="labels" inverseEntity="Item"/>
                </entity>
                <entity name="Magazine" parentEntity="Item" syncable="YES">
                    <attribute name="issue" attributeType="Integer 16" defaultValueString="1" \
            usesScalarValueType="YES"/>
                </entity>
            </model>
            """

    /// Version 3: caption → headline, Label → Keyword, labels → keywords (elementID),
    /// and a required attribute without a default that inference must refuse.
    static let libraryV3 =
        header("2024.3") + """
                <entity name="Author" syncable="YES">
                    <attribute name="name" attributeType="String" defaultValueString="Anonymous"/>
                    <attribute name="born" attributeType="Date" usesScalarValueType="NO"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Cascade" \
            destinationEntity="Item" inverseName="author" inverseEntity="Item"/>
                </entity>
                <entity name="Book" parentEntity="Item" syncable="YES">
                    <attribute name="pages" attributeType="Integer 32" defaultValueString="1" \
            usesScalarValueType="YES"/>
                    <relationship name="chapters" toMany="YES" ordered="YES" deletionRule="Deny" \
            destinationEntity="Chapter" inverseName="book" inverseEntity="Chapter"/>
                </entity>
                <entity name="Chapter" syncable="YES">
                    <attribute name="headline" attributeType="String" elementID="caption"/>
                    <attribute name="summary" optional="YES" attributeType="String"/>
                    <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" \
            destinationEntity="Book" inverseName="chapters" inverseEntity="Book"/>
                </entity>
                <entity name="Item" isAbstract="YES" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" \
            destinationEntity="Author" inverseName="items" inverseEntity="Author"/>
                    <relationship name="keywords" optional="YES" toMany="YES" deletionRule="Nullify" \
            destinationEntity="Keyword" inverseName="items" inverseEntity="Keyword" elementID="labels"/>
                </entity>
                <entity name="Keyword" elementID="Label" syncable="YES">
                    <attribute name="label" attributeType="String"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" \
            destinationEntity="Item" inverseName="keywords" inverseEntity="Item"/>
                </entity>
                <entity name="Magazine" parentEntity="Item" syncable="YES">
                    <attribute name="issue" attributeType="Integer 16" defaultValueString="1" \
            usesScalarValueType="YES"/>
                </entity>
            </model>
            """

    /// A bundle value of versions given as (folder name, XML).
    static func bundle(_ versions: [(String, String)], current: String? = nil, name: String = "Library")
        -> XcodeModelBundle
    {
        XcodeModelBundle(
            name: name, path: "\(name).xcdatamodeld",
            versions: versions.map {
                XcodeModelBundle.Version(
                    folder: $0.0, path: "\(name).xcdatamodeld/\($0.0)/contents", contents: Data($0.1.utf8))
            },
            currentVersion: current)
    }

    static var library: XcodeModelBundle {
        bundle(
            [
                ("Library 2.xcdatamodel", libraryV2), ("Library.xcdatamodel", libraryV1),
                ("Library 3.xcdatamodel", libraryV3),
            ],
            current: "Library 3.xcdatamodel")
    }
}
