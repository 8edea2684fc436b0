//! What a block cache keeps: its size classes, how many blocks a thread keeps per class, and
//! whether full bins are shared between threads.

use std::alloc::Layout;

/// The most classes a cache may have (grain classes and line classes together): the size of every
/// thread's array of bins.
pub(crate) const MAX_CLASSES: usize = 36;

/// A cache line, the size and alignment of the line classes.
const LINE: usize = 64;

/// How a [`BlockCache`](super::BlockCache) sorts blocks into size classes and how much it keeps.
///
/// Built with `const` methods, as the argument of [`block_cache!`](crate::block_cache):
///
/// ```
/// use motet_runtime::alloc::CacheConfig;
/// // Classes of 8, 16, ..., 256 bytes (alignment up to 8), 512 blocks a thread per class, and
/// // full bins handed between threads (at most 512 KiB a class).
/// const SMALL: CacheConfig = CacheConfig::new()
///     .grain(8)
///     .align(8)
///     .classes(32)
///     .bin_blocks(512)
///     .share_full_bins(512 << 10, usize::MAX);
/// assert_eq!(SMALL.class_layout_of(std::alloc::Layout::new::<[u8; 20]>()).unwrap().size(), 24);
/// ```
///
/// Every block of a class is allocated and freed with the class's layout, so a cached block
/// serves any layout of its class and goes back to the allocator with the layout it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheConfig {
    pub(crate) grain: usize,
    pub(crate) align: usize,
    pub(crate) classes: usize,
    pub(crate) line_classes: usize,
    pub(crate) line_padding: Option<usize>,
    pub(crate) bin_blocks: usize,
    pub(crate) sharing: Option<SharingLimits>,
    pub(crate) prefetch: bool,
}

/// How much the full bins that no thread holds may add up to (see
/// [`CacheConfig::share_full_bins`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SharingLimits {
    /// The most bytes one class keeps (but always room for two bins).
    pub(crate) class_bytes: usize,
    /// The most bytes all classes together keep.
    pub(crate) total_bytes: usize,
}

impl CacheConfig {
    /// 32 classes of 16 bytes (16 to 512, alignment up to 16), no line classes, 512 blocks a bin,
    /// no sharing, no prefetching.
    pub const fn new() -> CacheConfig {
        CacheConfig {
            grain: 16,
            align: 16,
            classes: 32,
            line_classes: 0,
            line_padding: None,
            bin_blocks: 512,
            sharing: None,
            prefetch: false,
        }
    }

    /// The size step of the grain classes: a layout's size is rounded up to a multiple of it (a
    /// power of two, at least the [alignment](CacheConfig::align)).
    pub const fn grain(mut self, bytes: usize) -> CacheConfig {
        self.grain = bytes;
        self
    }

    /// The alignment the blocks of the grain classes are allocated with, and the largest a layout
    /// may ask for to belong to one (a power of two). An allocator serves a block aligned to less
    /// than its natural alignment on its fastest path; a larger alignment costs memory.
    pub const fn align(mut self, bytes: usize) -> CacheConfig {
        self.align = bytes;
        self
    }

    /// How many grain classes there are: layouts up to `classes * grain` bytes are cached.
    pub const fn classes(mut self, classes: usize) -> CacheConfig {
        self.classes = classes;
        self
    }

    /// Adds classes of whole 64-byte lines (64, 128, ..., `64 * classes`), aligned to a line, for
    /// layouts aligned to more than [`align`](CacheConfig::align) and at most 64.
    pub const fn line_classes(mut self, classes: usize) -> CacheConfig {
        self.line_classes = classes;
        self
    }

    /// Lets [`BlockCache::layout_for`](super::BlockCache::layout_for) pad a type to whole lines
    /// (a line class) where that costs at most `bytes` more than its grain class.
    ///
    /// A block of a grain class starts anywhere in a line, so a block of 3.5 lines touches four
    /// lines in half of its places; padded to four lines and aligned, it always touches four,
    /// and one of 2.75 lines always three. That matters for blocks touched in whole passes
    /// (a process's future, written at its spawn and read when it runs) once many of them
    /// outgrow the caches.
    pub const fn pad_to_lines(mut self, bytes: usize) -> CacheConfig {
        self.line_padding = Some(bytes);
        self
    }

    /// How many blocks a thread keeps per class (a *bin*); beyond that a freed block goes to the
    /// allocator, or the full bin to the shared bins.
    pub const fn bin_blocks(mut self, blocks: usize) -> CacheConfig {
        self.bin_blocks = blocks;
        self
    }

    /// Hands full bins between threads: a thread whose bin of a class is full gives the whole bin
    /// to the cache's shared bins and starts an empty one, and a thread whose bin is empty takes
    /// a full one before it asks the allocator. One lock per bin of blocks moves blocks from the
    /// thread that frees them to the thread that allocates them, where the allocator's own
    /// cross-thread free costs an atomic operation per block and gives the memory back to the
    /// thread that allocated it first. The shared bins keep at most `class_bytes` of blocks per
    /// class (but at least two bins) and `total_bytes` in all; beyond that a full bin's blocks go
    /// back to the allocator.
    pub const fn share_full_bins(mut self, class_bytes: usize, total_bytes: usize) -> CacheConfig {
        self.sharing = Some(SharingLimits {
            class_bytes,
            total_bytes,
        });
        self
    }

    /// Asks the processor to fetch the block that the next allocation of a class will return,
    /// whenever one is handed out.
    ///
    /// A freed block that waited in a bin is usually out of the first-level caches, and a caller
    /// that writes the whole block at once (a process spawn) then stalls on a burst of stores to
    /// missing lines. The allocator's own free lists read each block's link before handing it
    /// out, which fetches its line early; the prefetch does that here, one block ahead.
    pub const fn prefetch_next(mut self, on: bool) -> CacheConfig {
        self.prefetch = on;
        self
    }

    /// Checks that the configuration makes sense; panics (at compile time, for a `const`)
    /// otherwise.
    pub const fn checked(self) -> CacheConfig {
        assert!(self.align.is_power_of_two() && self.align <= LINE);
        assert!(self.grain.is_power_of_two() && self.grain >= self.align);
        assert!(
            self.classes + self.line_classes <= MAX_CLASSES,
            "too many classes"
        );
        assert!(self.bin_blocks > 0);
        self
    }

    /// All classes, grain and line.
    #[inline(always)]
    pub(crate) const fn class_count(&self) -> usize {
        self.classes + self.line_classes
    }

    /// The class of `layout`, if it is cached.
    #[inline(always)]
    pub(crate) const fn class_of(&self, layout: Layout) -> Option<usize> {
        let size = layout.size();
        if size == 0 {
            None
        } else if layout.align() <= self.align {
            if size <= self.classes * self.grain {
                Some(size.div_ceil(self.grain) - 1)
            } else {
                None
            }
        } else if layout.align() <= LINE && size <= self.line_classes * LINE {
            Some(self.classes + size.div_ceil(LINE) - 1)
        } else {
            None
        }
    }

    /// The layout every block of `class` (below [`class_count`](Self::class_count)) is
    /// allocated and freed with.
    #[inline(always)]
    pub(crate) const fn class_layout(&self, class: usize) -> Layout {
        debug_assert!(class < self.class_count());
        let (size, align) = if class < self.classes {
            ((class + 1) * self.grain, self.align)
        } else {
            ((class - self.classes + 1) * LINE, LINE)
        };
        // SAFETY: the alignment is a power of two (`checked`) and the size a non-zero multiple
        // of it, far below `isize::MAX` (`Layout::from_size_align`'s checks cost more than the
        // rest of a cache miss).
        unsafe { Layout::from_size_align_unchecked(size, align) }
    }

    /// The layout of `layout`'s class, if it is cached: the layout its blocks really have.
    pub const fn class_layout_of(&self, layout: Layout) -> Option<Layout> {
        match self.class_of(layout) {
            Some(class) => Some(self.class_layout(class)),
            None => None,
        }
    }

    /// The layout a block for `layout` is allocated with: `layout` itself, or, with
    /// [`pad_to_lines`](Self::pad_to_lines), whole lines aligned to a line where that costs at
    /// most the padding allowed over the grain class.
    #[inline(always)]
    pub const fn block_layout(&self, layout: Layout) -> Layout {
        let Some(padding) = self.line_padding else {
            return layout;
        };
        let size = layout.size();
        let lines = size.div_ceil(LINE) * LINE;
        if layout.align() <= self.align
            && size > 0
            && lines <= self.line_classes * LINE
            && lines - size.div_ceil(self.grain) * self.grain <= padding
        {
            // SAFETY: a line is a power of two and `lines`, a multiple of it, is at most the
            // largest line class.
            unsafe { Layout::from_size_align_unchecked(lines, LINE) }
        } else {
            layout
        }
    }

    /// The bytes a full bin of `class` holds.
    pub(crate) const fn bin_bytes(&self, class: usize) -> usize {
        self.bin_blocks * self.class_layout(class).size()
    }
}

impl Default for CacheConfig {
    fn default() -> CacheConfig {
        CacheConfig::new()
    }
}
