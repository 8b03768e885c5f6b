package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// The XML shapes of vk.xml this generator reads.

type xRegistry struct {
	Tags       []xTag       `xml:"tags>tag"`
	Types      []xType      `xml:"types>type"`
	Enums      []xEnums     `xml:"enums"`
	Commands   []xCommand   `xml:"commands>command"`
	Features   []xFeature   `xml:"feature"`
	Extensions []xExtension `xml:"extensions>extension"`
}

type xTag struct {
	Name string `xml:"name,attr"`
}

type xType struct {
	Category string    `xml:"category,attr"`
	Name     string    `xml:"name,attr"`
	Alias    string    `xml:"alias,attr"`
	Requires string    `xml:"requires,attr"`
	BitVals  string    `xml:"bitvalues,attr"`
	API      string    `xml:"api,attr"`
	Inner    string    `xml:",innerxml"`
	Members  []xMember `xml:"member"`
}

type xMember struct {
	Values string `xml:"values,attr"`
	API    string `xml:"api,attr"`
	Inner  string `xml:",innerxml"`
}

type xEnums struct {
	Name     string  `xml:"name,attr"`
	Type     string  `xml:"type,attr"`
	BitWidth string  `xml:"bitwidth,attr"`
	Enums    []xEnum `xml:"enum"`
}

type xEnum struct {
	Name      string `xml:"name,attr"`
	Value     string `xml:"value,attr"`
	BitPos    string `xml:"bitpos,attr"`
	Offset    string `xml:"offset,attr"`
	ExtNumber string `xml:"extnumber,attr"`
	Dir       string `xml:"dir,attr"`
	Extends   string `xml:"extends,attr"`
	Alias     string `xml:"alias,attr"`
	Type      string `xml:"type,attr"`
	API       string `xml:"api,attr"`
}

type xCommand struct {
	Name   string    `xml:"name,attr"`
	Alias  string    `xml:"alias,attr"`
	API    string    `xml:"api,attr"`
	Proto  xMember   `xml:"proto"`
	Params []xMember `xml:"param"`
}

type xRequire struct {
	API   string  `xml:"api,attr"`
	Enums []xEnum `xml:"enum"`
}

type xFeature struct {
	API      string     `xml:"api,attr"`
	Name     string     `xml:"name,attr"`
	Requires []xRequire `xml:"require"`
}

type xExtension struct {
	Name      string     `xml:"name,attr"`
	Number    string     `xml:"number,attr"`
	Supported string     `xml:"supported,attr"`
	Requires  []xRequire `xml:"require"`
}

// decl is a parsed C declaration: a struct member, a command parameter or a command prototype.
type decl struct {
	Type   string   // the base type name: uint32_t, VkBuffer, char …
	Name   string   // the declared name
	Ptr    int      // pointer depth
	Arrays []string // array dimensions, outermost first: numbers or API constant names
	Values string   // for sType members: the structure type value
}

var (
	reComment = regexp.MustCompile(`(?s)<comment>.*?</comment>`)
	reTag     = regexp.MustCompile(`<[^>]*>`)
	reType    = regexp.MustCompile(`<type>(\w+)</type>`)
	reName    = regexp.MustCompile(`<name>(\w+)</name>`)
	reArray   = regexp.MustCompile(`\[\s*(?:<enum>)?(\w+)(?:</enum>)?\s*\]`)
)

func parseDecl(m xMember) (decl, error) {
	inner := reComment.ReplaceAllString(m.Inner, "")
	tm := reType.FindStringSubmatchIndex(inner)
	nm := reName.FindStringSubmatchIndex(inner)
	if tm == nil || nm == nil || nm[0] < tm[1] {
		return decl{}, fmt.Errorf("cannot parse declaration %q", inner)
	}
	d := decl{Type: inner[tm[2]:tm[3]], Name: inner[nm[2]:nm[3]], Values: m.Values}
	d.Ptr = strings.Count(reTag.ReplaceAllString(inner[tm[1]:nm[0]], ""), "*")
	rest := inner[nm[1]:]
	if strings.Contains(reTag.ReplaceAllString(rest, ""), ":") {
		return decl{}, fmt.Errorf("%s: bitfields are not supported", d.Name)
	}
	for _, a := range reArray.FindAllStringSubmatch(rest, -1) {
		d.Arrays = append(d.Arrays, a[1])
	}
	return d, nil
}

// innerName returns the <name> child of a type whose name is not an attribute.
func innerName(t xType) string {
	if t.Name != "" {
		return t.Name
	}
	if m := reName.FindStringSubmatch(t.Inner); m != nil {
		return m[1]
	}
	return ""
}

func readRegistry(path string) (*xRegistry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r xRegistry
	if err := xml.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// forVulkan reports whether an api/supported attribute includes plain Vulkan (empty means every API).
func forVulkan(api string) bool {
	if api == "" {
		return true
	}
	for _, a := range strings.Split(api, ",") {
		if a == "vulkan" {
			return true
		}
	}
	return false
}

const extBase = 1000000000 // first value of extension enums; each extension owns a block of extBlock values
const extBlock = 1000

// enumValue computes the numeric value of an enum entry; extNumber is the number of the extension requiring it.
func enumValue(e xEnum, extNumber string) (int64, error) {
	switch {
	case e.Value != "":
		return strconv.ParseInt(e.Value, 0, 64)
	case e.BitPos != "":
		p, err := strconv.Atoi(e.BitPos)
		return int64(1) << p, err
	case e.Offset != "":
		if e.ExtNumber != "" {
			extNumber = e.ExtNumber
		}
		n, err := strconv.ParseInt(extNumber, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: extension number %q", e.Name, extNumber)
		}
		off, err := strconv.ParseInt(e.Offset, 10, 64)
		if err != nil {
			return 0, err
		}
		v := extBase + (n-1)*extBlock + off
		if e.Dir == "-" {
			v = -v
		}
		return v, nil
	}
	return 0, fmt.Errorf("%s: no value", e.Name)
}
