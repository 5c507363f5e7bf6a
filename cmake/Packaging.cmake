# Installation as a desktop application, and a .deb through CPack.
include(GNUInstallDirs)
set(_rl_desktop "${PROJECT_SOURCE_DIR}/assets/desktop")
install(TARGETS reducelab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES "${_rl_desktop}/org.reducelab.ReduceLab.desktop" DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES "${_rl_desktop}/org.reducelab.ReduceLab.metainfo.xml" DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES "${_rl_desktop}/reducelab-mime.xml" DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
        RENAME reducelab.xml)
install(FILES "${_rl_desktop}/icons/reducelab.svg" DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
foreach(_size 16 24 32 48 64 128 256 512)
  install(FILES "${_rl_desktop}/icons/reducelab-${_size}.png"
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${_size}x${_size}/apps RENAME reducelab.png)
endforeach()
install(FILES "${_rl_desktop}/copyright" DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Debian wants the changelog and the manual page compressed.
foreach(_f changelog reducelab.1)
  add_custom_command(OUTPUT "${CMAKE_BINARY_DIR}/${_f}.gz"
    COMMAND gzip -9n -c "${_rl_desktop}/${_f}" > "${CMAKE_BINARY_DIR}/${_f}.gz"
    DEPENDS "${_rl_desktop}/${_f}" VERBATIM)
endforeach()
add_custom_target(reducelab_docs_gz ALL DEPENDS "${CMAKE_BINARY_DIR}/changelog.gz" "${CMAKE_BINARY_DIR}/reducelab.1.gz")
install(FILES "${CMAKE_BINARY_DIR}/changelog.gz" DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES "${CMAKE_BINARY_DIR}/reducelab.1.gz" DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "reducelab")
set(CPACK_PACKAGE_VENDOR "ReduceLab developers")
set(CPACK_PACKAGE_CONTACT "ReduceLab developers <reducelab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "ReduceLab runs the classic parallel reduction kernels on an NVIDIA GPU,\nanimates which lanes and shared-memory banks each step uses, and plots\nthe measured bandwidth against the GPU's peak. Without a GPU it teaches\non a CPU model of the same traces.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Fonts are read at run time (DejaVu); the CUDA runtime is linked statically, the driver is optional.
# libGL/libEGL are opened at run time by the glad loaders, so dpkg-shlibdeps cannot see them.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-dejavu-core, libegl1, libgl1")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libegl-mesa0, libgl1-mesa-dri, zenity")
set(CPACK_STRIP_FILES ON)
include(CPack)
