//go:build darwin

package metal

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
)

// The Objective-C side of the backend, through purego: no cgo.
//
// Ownership: an object a method named alloc…, new…, copy… or mutableCopy… returns, or a C function named
// …Create… or …Copy…, is owned (+1) and released by its owner's Close (or right after use); every other object
// is autoreleased and lives until the autorelease pool around the call pops. Every entry point into Metal runs
// on a locked OS thread inside an autorelease pool push and pop (withPool, and mtlGPU.run on its hot path).
// BOOL results are masked to their low byte (the rest of the register is undefined). NSError out-parameters
// become Go errors. The per-run calls go through objc_msgSend by purego.SyscallN with argument arrays kept
// between runs, so encoding a run allocates nothing; other calls use purego/objc's Send.

// frameworks are loaded in this order: without CoreGraphics a command-line program gets no default device
// from MTLCreateSystemDefaultDevice.
var frameworks = []string{"Foundation", "CoreGraphics", "Metal"}

// rt holds the C entry points, loaded once.
var rt struct {
	once                      sync.Once
	err                       error
	msgSend                   uintptr
	poolPush, poolPop         uintptr
	createSystemDefaultDevice uintptr
	copyAllDevices            uintptr
}

func loadRuntime() error {
	rt.once.Do(func() { rt.err = loadFrameworks() })
	return rt.err
}

func loadFrameworks() error {
	libobjc, err := purego.Dlopen("/usr/lib/libobjc.A.dylib", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return fmt.Errorf("%w: libobjc: %v", ErrNoDevice, err)
	}
	var metal uintptr
	for _, fw := range frameworks {
		h, err := purego.Dlopen("/System/Library/Frameworks/"+fw+".framework/"+fw, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			return fmt.Errorf("%w: %s.framework: %v", ErrNoDevice, fw, err)
		}
		metal = h
	}
	for _, s := range []struct {
		lib  uintptr
		name string
		dst  *uintptr
	}{
		{libobjc, "objc_msgSend", &rt.msgSend},
		{libobjc, "objc_autoreleasePoolPush", &rt.poolPush},
		{libobjc, "objc_autoreleasePoolPop", &rt.poolPop},
		{metal, "MTLCreateSystemDefaultDevice", &rt.createSystemDefaultDevice},
		{metal, "MTLCopyAllDevices", &rt.copyAllDevices},
	} {
		if *s.dst, err = purego.Dlsym(s.lib, s.name); err != nil || *s.dst == 0 {
			return fmt.Errorf("%w: %s: %v", ErrNoDevice, s.name, err)
		}
	}
	registerSelectors()
	return nil
}

// withPool runs f on a locked OS thread inside an autorelease pool.
func withPool(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pool, _, _ := purego.SyscallN(rt.poolPush)
	defer purego.SyscallN(rt.poolPop, pool)
	return f()
}

// Classes and selectors, registered once by loadFrameworks.
var (
	classNSString, classNSDictionary, classMTLCompileOptions, classMTLFunctionConstantValues objc.Class

	selAlloc, selInit, selRelease, selRespondsToSelector                                           objc.SEL
	selInitWithBytesLengthEncoding, selUTF8String, selLocalizedDescription, selCount               objc.SEL
	selObjectAtIndex, selDictionaryWithObjectForKey                                                objc.SEL
	selName, selHasUnifiedMemory, selMaxBufferLength, selRecommendedMaxWorkingSetSize              objc.SEL
	selRegistryID, selSupportsFamily, selNewCommandQueue                                           objc.SEL
	selNewBufferWithLength, selNewBufferWithBytesNoCopy, selContents, selSetLabel                  objc.SEL
	selSetFastMathEnabled, selSetMathMode, selSetMathFloatingPointFunctions                        objc.SEL
	selSetLanguageVersion, selSetPreprocessorMacros, selNewLibraryWithSource                       objc.SEL
	selSetConstantValue, selNewFunctionWithNameConstantValues, selNewFunctionWithName              objc.SEL
	selNewComputePipelineState, selMaxTotalThreadsPerThreadgroup, selThreadExecutionWidth          objc.SEL
	selCommandBufferWithUnretainedReferences, selComputeCommandEncoder                             objc.SEL
	selSetComputePipelineState, selSetBufferOffsetAtIndex, selSetBytesLengthAtIndex                objc.SEL
	selDispatchThreadgroups, selEndEncoding, selCommit, selWaitUntilCompleted, selStatus, selError objc.SEL
)

func registerSelectors() {
	classNSString = objc.GetClass("NSString")
	classNSDictionary = objc.GetClass("NSDictionary")
	classMTLCompileOptions = objc.GetClass("MTLCompileOptions")
	classMTLFunctionConstantValues = objc.GetClass("MTLFunctionConstantValues")
	for _, s := range []struct {
		dst  *objc.SEL
		name string
	}{
		{&selAlloc, "alloc"}, {&selInit, "init"}, {&selRelease, "release"}, {&selRespondsToSelector, "respondsToSelector:"},
		{&selInitWithBytesLengthEncoding, "initWithBytes:length:encoding:"}, {&selUTF8String, "UTF8String"},
		{&selLocalizedDescription, "localizedDescription"}, {&selCount, "count"}, {&selObjectAtIndex, "objectAtIndex:"},
		{&selDictionaryWithObjectForKey, "dictionaryWithObject:forKey:"},
		{&selName, "name"}, {&selHasUnifiedMemory, "hasUnifiedMemory"}, {&selMaxBufferLength, "maxBufferLength"},
		{&selRecommendedMaxWorkingSetSize, "recommendedMaxWorkingSetSize"}, {&selRegistryID, "registryID"},
		{&selSupportsFamily, "supportsFamily:"}, {&selNewCommandQueue, "newCommandQueue"},
		{&selNewBufferWithLength, "newBufferWithLength:options:"},
		{&selNewBufferWithBytesNoCopy, "newBufferWithBytesNoCopy:length:options:deallocator:"},
		{&selContents, "contents"}, {&selSetLabel, "setLabel:"},
		{&selSetFastMathEnabled, "setFastMathEnabled:"}, {&selSetMathMode, "setMathMode:"},
		{&selSetMathFloatingPointFunctions, "setMathFloatingPointFunctions:"},
		{&selSetLanguageVersion, "setLanguageVersion:"}, {&selSetPreprocessorMacros, "setPreprocessorMacros:"},
		{&selNewLibraryWithSource, "newLibraryWithSource:options:error:"},
		{&selSetConstantValue, "setConstantValue:type:atIndex:"},
		{&selNewFunctionWithNameConstantValues, "newFunctionWithName:constantValues:error:"},
		{&selNewFunctionWithName, "newFunctionWithName:"},
		{&selNewComputePipelineState, "newComputePipelineStateWithFunction:error:"},
		{&selMaxTotalThreadsPerThreadgroup, "maxTotalThreadsPerThreadgroup"},
		{&selThreadExecutionWidth, "threadExecutionWidth"},
		{&selCommandBufferWithUnretainedReferences, "commandBufferWithUnretainedReferences"},
		{&selComputeCommandEncoder, "computeCommandEncoder"},
		{&selSetComputePipelineState, "setComputePipelineState:"},
		{&selSetBufferOffsetAtIndex, "setBuffer:offset:atIndex:"},
		{&selSetBytesLengthAtIndex, "setBytes:length:atIndex:"},
		{&selDispatchThreadgroups, "dispatchThreadgroups:threadsPerThreadgroup:"},
		{&selEndEncoding, "endEncoding"}, {&selCommit, "commit"}, {&selWaitUntilCompleted, "waitUntilCompleted"},
		{&selStatus, "status"}, {&selError, "error"},
	} {
		*s.dst = objc.RegisterName(s.name)
	}
}

// isTrue masks a BOOL result to its low byte.
func isTrue(r objc.ID) bool { return uintptr(r)&0xff != 0 }

func release(o objc.ID) {
	if o != 0 {
		o.Send(selRelease)
	}
}

func responds(o objc.ID, sel objc.SEL) bool { return isTrue(o.Send(selRespondsToSelector, sel)) }

// nsUTF8 is NSUTF8StringEncoding.
const nsUTF8 = 4

// newString returns an owned NSString holding s.
func newString(s string) objc.ID {
	b := []byte(s)
	if len(b) == 0 {
		b = []byte{0}
	}
	ns := objc.ID(classNSString).Send(selAlloc).Send(selInitWithBytesLengthEncoding, unsafe.Pointer(&b[0]), uintptr(len(s)), uintptr(nsUTF8))
	runtime.KeepAlive(b)
	return ns
}

// goString copies an NSString.
func goString(ns objc.ID) string {
	if ns == 0 {
		return ""
	}
	p := objc.Send[*byte](ns, selUTF8String)
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// nsError turns an NSError out-parameter into a Go error.
func nsError(what string, e objc.ID) error {
	if e == 0 {
		return fmt.Errorf("metal: %s failed", what)
	}
	return fmt.Errorf("metal: %s: %s", what, goString(e.Send(selLocalizedDescription)))
}
